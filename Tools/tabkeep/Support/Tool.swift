import Foundation
import TabKeep
import TabKeepDump

/// The command table and the one place that turns errors into messages and exit codes:
/// 0 done, 1 failed or problems found, 2 usage.
enum Tool {
    static let version = "0.1.0"

    static let commands: [CommandSpec] = [
        DemoCommand.spec, ShowCommand.spec, ProfilesCommand.spec, SetCommand.spec, DumpCommand.spec,
        RestoreCommand.spec, VerifyCommand.spec, StatCommand.spec, BackupCommand.spec, SyncCommand.spec,
        ExplainCommand.spec,
        EraseCommand.spec, HelpCommand.spec,
    ]

    static let generalUsage = "usage: tabkeep COMMAND [ARGUMENTS] (tabkeep --help lists the commands)"

    static func command(named name: String) -> CommandSpec? {
        commands.first { $0.name == name }
    }

    static func run(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first else {
            Output.error("no command given")
            Output.note(generalUsage)
            return 2
        }
        switch first {
        case "--version", "-V":
            print(
                "tabkeep \(version) (dump format \(DumpHeader.formatVersion), store schema \(TabKeepStore.schemaVersion))"
            )
            return 0
        case "--help", "-h":
            print(HelpCommand.overview())
            return 0
        default:
            break
        }
        guard let spec = command(named: first) else {
            Output.error(first.hasPrefix("-") ? "unknown flag \(first)" : "unknown command \"\(first)\"")
            Output.note(generalUsage)
            return 2
        }
        do {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), spec: spec)
            if parsed.wantsHelp {
                print(HelpCommand.help(for: spec))
                return 0
            }
            let status = try spec.run(parsed)
            fflush(nil)
            return status
        } catch let error as UsageError {
            fflush(nil)
            Output.error(error.message)
            Output.note("usage: tabkeep \(spec.name) \(spec.usage)")
            Output.note("Run 'tabkeep \(spec.name) --help' for details.")
            return 2
        } catch {
            fflush(nil)
            Output.error(String(describing: error))
            return 1
        }
    }
}
