#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tool with commands (`tabkeep show …`, `tabkeep-stress edit …`): dispatch, `help`,
/// `help COMMAND`, `COMMAND --help`, `--version`, and the one place errors become messages and
/// exit statuses: 0 done, 1 failed, 2 usage.
public struct CommandLineTool: Sendable {
    /// The tool's name, as usage and messages show it.
    public var name: String
    /// `--version`'s line; nil for a tool without one.
    public var versionLine: String?
    /// The lines above the command list of the overview.
    public var overviewHeader: [String]
    /// The lines below it.
    public var overviewFooter: [String]
    /// The commands, in the order the overview lists them; `help` is added last.
    public private(set) var commands: [Command] = []
    /// Where messages go.
    public var diagnostics: Diagnostics { Diagnostics(tool: name) }

    /// A tool; `helpExample` names the command `help`'s own help shows as its example.
    public init(
        name: String, versionLine: String? = nil, overviewHeader: [String], overviewFooter: [String] = [],
        commands: [Command], helpExample: String
    ) {
        self.name = name
        self.versionLine = versionLine
        self.overviewHeader = overviewHeader
        self.overviewFooter = overviewFooter
        let tool = name
        let help = Command(
            name: "help", summary: "Show help for \(name) or one command.",
            details: """
                With no COMMAND, lists every command; with one, prints its usage, details and an example.
                Every command also takes --help.

                Example:
                  \(name) help \(helpExample)
                """,
            syntax: CommandSyntax(positionals: [
                Positional("COMMAND", help: "the command to explain", optional: true)
            ])
        ) { _ in preconditionFailure("\(tool) help is run by CommandLineTool") }
        self.commands = commands + [help]
        var names = Set<String>()
        for command in self.commands {
            precondition(names.insert(command.name).inserted, "command \(command.name) declared twice")
        }
    }

    /// The command called `name`.
    public func command(named name: String) -> Command? { commands.first { $0.name == name } }

    /// `usage: NAME COMMAND [ARGUMENTS] (NAME --help lists the commands)`.
    public var generalUsage: String {
        "usage: \(name) COMMAND [ARGUMENTS] (\(name) --help lists the commands)"
    }

    /// The overview: the header, `usage:`, every command with its summary, the footer.
    public var overview: String {
        var lines = overviewHeader + ["", "usage: \(name) COMMAND [ARGUMENTS]", "", "Commands:"]
        let width = commands.map(\.name.count).max() ?? 0
        for command in commands {
            lines.append(
                "  \(command.name)\(String(repeating: " ", count: width - command.name.count))  \(command.summary)"
            )
        }
        if !overviewFooter.isEmpty { lines += [""] + overviewFooter }
        return lines.joined(separator: "\n")
    }

    /// Runs the command line (without the program name); returns the exit status.
    public func run(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first else {
            diagnostics.error("no command given")
            diagnostics.note(generalUsage)
            return 2
        }
        if let versionLine, first == "--version" || first == "-V" {
            Self.printLine(versionLine)
            return 0
        }
        if first == "--help" || first == "-h" {
            Self.printLine(overview)
            return 0
        }
        guard let command = command(named: first) else {
            diagnostics.error(first.hasPrefix("-") ? "unknown flag \(first)" : "unknown command \"\(first)\"")
            diagnostics.note(generalUsage)
            return 2
        }
        return Self.run(
            command, Array(arguments.dropFirst()), calledAs: "\(name) \(command.name)",
            diagnostics: diagnostics
        ) {
            parsed in
            guard command.name == "help" else { return try command.run(parsed) }
            guard let topic = parsed[command.syntax.positionals[0]] else {
                Self.printLine(overview)
                return 0
            }
            guard let named = self.command(named: topic) else {
                throw UsageError("unknown command \"\(topic)\"")
            }
            Self.printLine(named.help(calledAs: "\(name) \(named.name)"))
            return 0
        }
    }

    /// Parses `arguments` for `command` and runs it (or prints its help); a ``UsageError`` exits 2
    /// with `usage: CALLED ARGUMENTS` and a pointer to `--help`, any other error exits 1.
    public static func run(
        _ command: Command, _ arguments: [String], calledAs called: String, diagnostics: Diagnostics
    ) -> Int32 {
        run(command, arguments, calledAs: called, diagnostics: diagnostics, body: command.run)
    }

    private static func run(
        _ command: Command, _ arguments: [String], calledAs called: String, diagnostics: Diagnostics,
        body: (ParsedArguments) throws -> Int32
    ) -> Int32 {
        do {
            let parsed = try ParsedArguments(arguments, syntax: command.syntax)
            if parsed.wantsHelp {
                printLine(command.help(calledAs: called))
                return 0
            }
            let status = try body(parsed)
            fflush(nil)
            return status
        } catch let error as UsageError {
            fflush(nil)
            diagnostics.error(error.message)
            diagnostics.note("usage: \(called) \(command.usageArguments)")
            diagnostics.note("Run '\(called) --help' for details.")
            return 2
        } catch {
            fflush(nil)
            diagnostics.error(String(describing: error))
            return 1
        }
    }

    /// `text` and a newline on stdout, through stdio's buffer (as `print` writes).
    static func printLine(_ text: String) { print(text) }
}
