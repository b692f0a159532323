/// A command line split against a ``CommandSyntax``, every value already converted: read back
/// through the same declarations (`arguments[Flags.profile]`), so a misspelled flag cannot compile.
public struct ParsedArguments: Sendable {
    /// Whether `--help` or `-h` was given (then nothing else was checked).
    public private(set) var wantsHelp = false
    /// The positional arguments, in order.
    public private(set) var positionals: [String] = []
    private var values: [String: [any Sendable]] = [:]
    private var texts: [String: [String]] = [:]
    private var switches: Set<String> = []
    private let syntax: CommandSyntax

    /// Splits `arguments` against `syntax`: `--name value`, `--name=value`, switches, `--` (all
    /// that follows is positional), `-` as a positional, `--help`/`-h`. Throws ``UsageError`` on an
    /// unknown flag, a missing or refused value, a repeated single flag, a missing required flag
    /// or positional, or an extra positional.
    public init(_ arguments: [String], syntax: CommandSyntax) throws(UsageError) {
        self.syntax = syntax
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if argument == "--help" || argument == "-h" {
                wantsHelp = true
                continue
            }
            guard argument.hasPrefix("--") else { throw UsageError("unknown flag \(argument)") }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let flag = syntax.flags.first(where: { $0.name == name }) else {
                throw UsageError("unknown flag --\(name)")
            }
            guard let convert = flag.convert, let placeholder = flag.placeholder else {
                if inlineValue != nil { throw UsageError("--\(name) takes no value") }
                switches.insert(name)
                continue
            }
            let text: String
            if let inlineValue {
                text = inlineValue
            } else {
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw UsageError("--\(name) needs a value (\(placeholder))")
                }
                text = arguments[index]
                index += 1
            }
            if !flag.isRepeatable, texts[name] != nil { throw UsageError("--\(name) given twice") }
            values[name, default: []].append(try convert(text))
            texts[name, default: []].append(text)
        }
        if wantsHelp { return }
        let required = syntax.positionals.filter { !$0.isOptional }
        if positionals.count < required.count {
            throw UsageError("missing \(required[positionals.count].name)")
        }
        if positionals.count > syntax.positionals.count {
            throw UsageError("unexpected argument \"\(positionals[syntax.positionals.count])\"")
        }
        var groups: [String: [FlagUse]] = [:]
        var groupOrder: [String] = []
        for flag in syntax.flags {
            switch flag.presence {
            case .optional: break
            case .required:
                if texts[flag.name] == nil { throw UsageError("missing --\(flag.name)") }
            case .oneOf(let group):
                if groups[group] == nil { groupOrder.append(group) }
                groups[group, default: []].append(flag)
            }
        }
        for group in groupOrder {
            let members = groups[group]!
            guard members.filter({ texts[$0.name] != nil }).count == 1 else {
                throw UsageError("give exactly one of \(Self.list(members.map { "--\($0.name)" }))")
            }
        }
    }

    /// The value of `option`, converted when parsed; the last one for a repeatable option; nil
    /// when not given.
    public subscript<Value>(option: Option<Value>) -> Value? { all(option).last }

    /// Every value of `option`, in the order given.
    public func all<Value>(_ option: Option<Value>) -> [Value] {
        checkDeclared(option.name)
        return (values[option.name] ?? []).map { $0 as! Value }
    }

    /// The value of `option`, or ``UsageError`` `missing --NAME` when it was not given.
    public func required<Value>(_ option: Option<Value>) throws(UsageError) -> Value {
        guard let value = self[option] else { throw UsageError("missing --\(option.name)") }
        return value
    }

    /// Whether `flag` was given.
    public subscript(flag: Switch) -> Bool {
        checkDeclared(flag.name)
        return switches.contains(flag.name)
    }

    /// Whether `option` was given at least once.
    public func has<Value>(_ option: Option<Value>) -> Bool {
        checkDeclared(option.name)
        return texts[option.name] != nil
    }

    /// The text of `positional`, or nil when an optional one was left out.
    public subscript(positional: Positional) -> String? {
        guard let index = syntax.positionals.firstIndex(where: { $0.name == positional.name }) else {
            preconditionFailure("\(positional.name) is not an argument of this command")
        }
        return index < positionals.count ? positionals[index] : nil
    }

    /// The text of a required `positional` (the parse already refused a command line without it).
    public func value(of positional: Positional) -> String {
        guard let text = self[positional] else { preconditionFailure("\(positional.name) was not parsed") }
        return text
    }

    /// The text `option` was given as, for drivers that read flags by name (tabkeep-stress's modes).
    package func text(named name: String) -> String? {
        checkDeclared(name)
        return texts[name]?.last
    }

    /// A flag the command does not declare is a bug in the tool, caught by its first test run.
    private func checkDeclared(_ name: String) {
        precondition(syntax.flags.contains { $0.name == name }, "--\(name) is not a flag of this command")
    }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items.last!
    }
}
