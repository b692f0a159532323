/// One flag a command accepts.
struct FlagSpec: Sendable {
    /// The name without dashes: `profile` for `--profile`.
    var name: String
    /// What its value looks like in usage text (`P`, `LIST`); nil for a switch.
    var value: String?
    /// Whether it may be given more than once.
    var repeatable = false
}

/// A command: how it is called, what it says about itself, and what it does.
struct CommandSpec: Sendable {
    var name: String
    /// The one-line usage after `tabkeep NAME `.
    var usage: String
    /// One line for `tabkeep help`.
    var summary: String
    /// What `--help` adds: the details and an example.
    var details: String
    /// Names of the positional arguments, in order (all required).
    var positionals: [String]
    /// Names of positional arguments that may follow the required ones.
    var optionalPositionals: [String] = []
    var flags: [FlagSpec]
    var run: @Sendable (ParsedArguments) throws -> Int32
}

/// A wrong call: exit 2 with the command's usage.
struct UsageError: Error {
    var message: String
}

/// A failure to report: exit 1.
struct ToolError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// The arguments of one command, split by hand: positionals, flag values, switches.
struct ParsedArguments {
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var switches: Set<String> = []
    var wantsHelp = false

    /// Splits `arguments` against `spec`; throws ``UsageError`` on anything it does not accept.
    init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
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
            guard argument.hasPrefix("--") else { throw UsageError(message: "unknown flag \(argument)") }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let flag = spec.flags.first(where: { $0.name == name }) else {
                throw UsageError(message: "unknown flag --\(name)")
            }
            if flag.value == nil {
                if inlineValue != nil { throw UsageError(message: "--\(name) takes no value") }
                switches.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw UsageError(message: "--\(name) needs a value (\(flag.value!))")
                }
                value = arguments[index]
                index += 1
            }
            if !flag.repeatable, values[name] != nil { throw UsageError(message: "--\(name) given twice") }
            values[name, default: []].append(value)
        }
        if wantsHelp { return }
        if positionals.count < spec.positionals.count {
            throw UsageError(message: "missing \(spec.positionals[positionals.count])")
        }
        let most = spec.positionals.count + spec.optionalPositionals.count
        if positionals.count > most {
            throw UsageError(message: "unexpected argument \"\(positionals[most])\"")
        }
    }

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { switches.contains(name) || values[name] != nil }

    func required(_ name: String) throws(UsageError) -> String {
        guard let value = value(name) else { throw UsageError(message: "missing --\(name)") }
        return value
    }
}
