/// A wrong command line: the tool prints the message and its usage and exits 2.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the flag or argument (`--max-drift: "5x" is not a duration …`).
    public var message: String
    /// A usage error saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// A flag that takes a value, declared once with its help and converted once, when the command
/// line is parsed: a value it refuses is a ``UsageError`` naming the flag.
///
///     static let maxDrift = Option<Duration>(
///         name: "max-drift", placeholder: "DURATION", help: "refuse entries this far ahead (default 5m)",
///         parse: Values.duration)
///     …
///     let drift = arguments[Flags.maxDrift] ?? .seconds(300)
public struct Option<Value: Sendable>: Sendable {
    /// The name without dashes: `profile` for `--profile`.
    public let name: String
    /// What the value looks like in usage text (`P`, `LIST`).
    public let placeholder: String
    /// One line for the `--help` table.
    public let help: String
    /// Whether it may be given more than once (every value is kept, in order).
    public let isRepeatable: Bool
    let convert: @Sendable (String) throws(UsageError) -> Value

    /// An option whose text `parse` turns into a `Value` or refuses with a ``UsageError``.
    public init(
        name: String, placeholder: String, help: String, repeatable: Bool = false,
        parse: @escaping @Sendable (String) throws(UsageError) -> Value
    ) {
        self.name = name
        self.placeholder = placeholder
        self.help = help
        self.isRepeatable = repeatable
        self.convert = parse
    }
}

extension Option where Value == String {
    /// An option whose value is kept as given (a path, a URL checked later).
    public init(name: String, placeholder: String, help: String, repeatable: Bool = false) {
        self.init(name: name, placeholder: placeholder, help: help, repeatable: repeatable) { $0 }
    }
}

/// A flag without a value: present or not.
public struct Switch: Sendable {
    /// The name without dashes: `json` for `--json`.
    public let name: String
    /// One line for the `--help` table.
    public let help: String

    /// A switch `--name`.
    public init(name: String, help: String) {
        self.name = name
        self.help = help
    }
}

/// An argument without a flag, by position.
public struct Positional: Sendable {
    /// How usage text shows it (`STORE`).
    public let name: String
    /// One line for the `--help` table.
    public let help: String
    /// Whether it may be left out (only after every required one).
    public let isOptional: Bool

    /// A positional argument; `optional` ones follow the required ones.
    public init(_ name: String, help: String, optional: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = optional
    }
}

/// How a command uses one declared flag: whether it must be given, and how usage text shows it.
public struct FlagUse: Sendable {
    /// Whether the flag must be given, may be, or is one of a group of which exactly one must be.
    public enum Presence: Sendable, Equatable {
        case optional
        case required
        /// One of the flags with the same group name; exactly one of them must be given.
        case oneOf(String)
    }

    /// The name without dashes.
    public let name: String
    /// The value's placeholder; nil for a switch.
    public let placeholder: String?
    /// One line for the `--help` table.
    public let help: String
    /// Whether it may be given more than once.
    public let isRepeatable: Bool
    /// Whether it must be given.
    public let presence: Presence
    let convert: (@Sendable (String) throws(UsageError) -> any Sendable)?

    init<Value>(_ option: Option<Value>, presence: Presence) {
        name = option.name
        placeholder = option.placeholder
        help = option.help
        isRepeatable = option.isRepeatable
        self.presence = presence
        let convert = option.convert
        self.convert = { (text) throws(UsageError) -> any Sendable in try convert(text) }
    }

    init(_ flag: Switch) {
        name = flag.name
        placeholder = nil
        help = flag.help
        isRepeatable = false
        presence = .optional
        convert = nil
    }

    /// `option` may be given.
    public static func optional<Value>(_ option: Option<Value>) -> FlagUse {
        FlagUse(option, presence: .optional)
    }
    /// `option` must be given: leaving it out is a usage error (`missing --profile`).
    public static func required<Value>(_ option: Option<Value>) -> FlagUse {
        FlagUse(option, presence: .required)
    }
    /// `option` is one of `group`'s flags, of which exactly one must be given.
    public static func oneOf<Value>(_ group: String, _ option: Option<Value>) -> FlagUse {
        FlagUse(option, presence: .oneOf(group))
    }
    /// `flag` may be given.
    public static func `switch`(_ flag: Switch) -> FlagUse { FlagUse(flag) }

    /// How usage text shows the flag alone: `--profile P`, `--json`.
    var synopsis: String { placeholder.map { "--\(name) \($0)" } ?? "--\(name)" }
}

/// Everything a command accepts: its positionals, then its flags, in the order help shows them.
public struct CommandSyntax: Sendable {
    /// Positional arguments, required ones first.
    public var positionals: [Positional]
    /// Flags, in the order usage and help list them.
    public var flags: [FlagUse]

    /// A syntax; a flag name given twice is a declaration bug and traps.
    public init(positionals: [Positional] = [], flags: [FlagUse] = []) {
        var names = Set<String>()
        for flag in flags {
            precondition(names.insert(flag.name).inserted, "--\(flag.name) declared twice")
            precondition(flag.name != "help", "--help is every command's own")
        }
        let firstOptional = positionals.firstIndex { $0.isOptional } ?? positionals.count
        precondition(
            positionals[firstOptional...].allSatisfy(\.isOptional),
            "a required positional follows an optional one")
        self.positionals = positionals
        self.flags = flags
    }
}
