/// One command of a tool: how it is called, what it says about itself, and what it does.
public struct Command: Sendable {
    /// The word after the tool's name (`show`); for a tool without commands, the tool's name.
    public var name: String
    /// One line for the tool's command list and the top of `--help`.
    public var summary: String
    /// What `--help` adds after the argument table: the details and examples, as free text.
    public var details: String
    /// The positionals and flags it accepts.
    public var syntax: CommandSyntax
    /// Runs the command on its parsed arguments; returns the exit status. A ``UsageError`` exits 2
    /// with the usage, any other error exits 1 with its description.
    public var run: @Sendable (ParsedArguments) throws -> Int32

    /// A command.
    public init(
        name: String, summary: String, details: String, syntax: CommandSyntax,
        run: @escaping @Sendable (ParsedArguments) throws -> Int32
    ) {
        self.name = name
        self.summary = summary
        self.details = details
        self.syntax = syntax
        self.run = run
    }

    /// The arguments after the command's name, as usage shows them:
    /// `STORE --profile P [--bar B] [--profile P]... (--peer S | --folder DIR) [--json]`.
    public var usageArguments: String {
        var parts = syntax.positionals.map { $0.isOptional ? "[\($0.name)]" : $0.name }
        var index = 0
        let flags = syntax.flags
        while index < flags.count {
            let flag = flags[index]
            switch flag.presence {
            case .required:
                parts.append(flag.synopsis + (flag.isRepeatable ? "..." : ""))
                index += 1
            case .optional:
                parts.append("[\(flag.synopsis)]" + (flag.isRepeatable ? "..." : ""))
                index += 1
            case .oneOf(let group):
                var members: [String] = []
                while index < flags.count, flags[index].presence == .oneOf(group) {
                    members.append(flags[index].synopsis)
                    index += 1
                }
                parts.append("(" + members.joined(separator: " | ") + ")")
            }
        }
        return parts.joined(separator: " ")
    }

    /// The argument table of `--help`: each positional and flag with its help, then `--help`.
    public var argumentTable: [String] {
        var rows: [(String, String)] = syntax.positionals.map { ($0.name, $0.help) }
        for flag in syntax.flags {
            var help = flag.help
            if flag.presence == .required { help += " (required)" }
            if flag.isRepeatable { help += " (repeatable)" }
            rows.append((flag.synopsis, help))
        }
        rows.append(("-h, --help", "print this help"))
        return HelpTable.lines(rows)
    }

    /// The whole `--help` text of the command as `tool` calls it (`tabkeep show`, or `tabkeep-bench`).
    public func help(calledAs tool: String) -> String {
        var text = "usage: \(tool) \(usageArguments)\n\n\(summary)\n\n"
        text += (syntax.positionals.isEmpty ? "Options:\n" : "Arguments and options:\n")
        text += argumentTable.joined(separator: "\n")
        if !details.isEmpty { text += "\n\n" + details }
        return text
    }
}

/// Two columns: names padded to one width, a name too long for it on a line of its own.
enum HelpTable {
    static let widest = 26

    static func lines(_ rows: [(String, String)]) -> [String] {
        let width = min(rows.map(\.0.count).filter { $0 <= widest }.max() ?? 0, widest)
        var lines: [String] = []
        for (name, help) in rows {
            if name.count > width {
                lines.append("  \(name)")
                lines.append("  " + String(repeating: " ", count: width) + "  \(help)")
            } else {
                lines.append("  \(name)" + String(repeating: " ", count: width - name.count) + "  \(help)")
            }
        }
        return lines
    }
}
