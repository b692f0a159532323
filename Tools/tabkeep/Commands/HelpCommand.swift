/// `tabkeep help [COMMAND]`.
enum HelpCommand {
    static let spec = CommandSpec(
        name: "help", usage: "[COMMAND]", summary: "Show help for tabkeep or one command.",
        details: """
            With no COMMAND, lists every command; with one, prints its usage, details and an example.
            Every command also takes --help.

            Example:
              tabkeep help restore
            """,
        positionals: [], optionalPositionals: ["COMMAND"], flags: [], run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        guard let name = arguments.positionals.first else {
            print(overview())
            return 0
        }
        guard let spec = Tool.command(named: name) else {
            throw UsageError(message: "unknown command \"\(name)\"")
        }
        print(help(for: spec))
        return 0
    }

    static func overview() -> String {
        var lines = [
            "tabkeep \(Tool.version): the TabKeep admin tool. Inspect, fix, dump, restore, verify, back up and sync",
            "the tab bar arrangements a TabKeep store keeps per user profile.",
            "",
            "usage: tabkeep COMMAND [ARGUMENTS]",
            "",
            "Commands:",
        ]
        let width = Tool.commands.map(\.name.count).max() ?? 0
        for spec in Tool.commands {
            lines.append(
                "  \(spec.name)\(String(repeating: " ", count: width - spec.name.count))  \(spec.summary)")
        }
        lines += [
            "",
            "STORE is a store directory; P a profile; B a bar (default \"main\"); LIST comma-separated tab ids,",
            "each optionally TAB:PLACEMENT (fixed, movable, default, optional).",
            "Exit status: 0 done, 1 failed or problems found, 2 usage error.",
            "Run 'tabkeep help COMMAND' or 'tabkeep COMMAND --help' for details; 'tabkeep --version' for the version.",
        ]
        return lines.joined(separator: "\n")
    }

    static func help(for spec: CommandSpec) -> String {
        "usage: tabkeep \(spec.name) \(spec.usage)\n\n\(spec.summary)\n\n\(spec.details)"
    }
}
