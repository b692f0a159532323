// Stand-ins for the core types of /work/contract/API.md, so this branch compiles before the
// identifiers and document land. Delete this file when merging: the real types replace them.

/// Stand-in for the contract's `IdentifierError`.
public struct IdentifierError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which kind of identifier was invalid ("tab").
    public var field: String
    /// The offending value.
    public var value: String
    /// The rule it broke.
    public var rule: String
    /// A readable sentence naming the field, the value and the rule.
    public var description: String { "invalid \(field) \"\(value)\": \(rule)" }
}

/// Stand-in for the contract's `TabID`: 1–64 UTF-8 bytes, no control characters.
public struct TabID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The identifier's text.
    public let rawValue: String

    /// Validates `rawValue`.
    public init(_ rawValue: String) throws(IdentifierError) {
        guard (1...64).contains(rawValue.utf8.count) else {
            throw IdentifierError(field: "tab", value: rawValue, rule: "must be 1–64 UTF-8 bytes")
        }
        guard !rawValue.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw IdentifierError(field: "tab", value: rawValue, rule: "must not contain control characters")
        }
        self.rawValue = rawValue
    }

    /// Orders by raw value.
    public static func < (lhs: TabID, rhs: TabID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The raw value.
    public var description: String { rawValue }
}

/// Stand-in for the contract's `Selection`: a tab, the More item, or nothing.
public enum Selection: Hashable, Sendable {
    /// A tab, wherever it is shown.
    case tab(TabID)
    /// The More item itself (its list is showing).
    case more
    /// Nothing is selected (the list is empty).
    case none
}
