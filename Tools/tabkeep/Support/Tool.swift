import Foundation
import TabKeep
import TabKeepDump
import ToolSupport

/// The command table; ToolSupport's ``CommandLineTool`` turns errors into messages and exit
/// codes: 0 done, 1 failed or problems found, 2 usage.
enum Tool {
    static let version = "0.1.0"

    static let commandLine = CommandLineTool(
        name: "tabkeep",
        versionLine:
            "tabkeep \(version) (dump format \(DumpHeader.formatVersion), store schema \(TabKeepStore.schemaVersion))",
        overviewHeader: [
            "tabkeep \(version): the TabKeep admin tool. Inspect, fix, dump, restore, verify, back up and sync",
            "the tab bar arrangements a TabKeep store keeps per user profile.",
        ],
        overviewFooter: [
            "STORE is a store directory; P a profile; B a bar (default \"main\"); LIST comma-separated tab ids,",
            "each optionally TAB:PLACEMENT (fixed, movable, default, optional).",
            "Exit status: 0 done, 1 failed or problems found, 2 usage error.",
            "Run 'tabkeep help COMMAND' or 'tabkeep COMMAND --help' for details; 'tabkeep --version' for the version.",
        ],
        commands: [
            DemoCommand.command, ShowCommand.command, ProfilesCommand.command, SetCommand.command,
            DumpCommand.command, RestoreCommand.command, VerifyCommand.command, StatCommand.command,
            BackupCommand.command, SyncCommand.command, ExplainCommand.command, EraseCommand.command,
        ],
        helpExample: "restore")

    static func run(_ arguments: [String]) -> Int32 { commandLine.run(arguments) }
}
