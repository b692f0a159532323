/// What ``ProfileID``, ``BarID`` and ``TabID`` share: a validated string (a UTF-8 length range, no
/// NUL, no control characters) compared, hashed and ordered by its UTF-8 bytes — the order LMDB
/// keys sort in — never by Unicode equivalence.
public protocol StringIdentifier: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The identifier as given.
    var rawValue: String { get }
}

extension StringIdentifier {
    /// The raw value.
    public var description: String { rawValue }

    /// Byte-wise equality.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        IdentifierRules.equal(lhs.rawValue, rhs.rawValue)
    }

    /// Byte-wise order.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        IdentifierRules.less(lhs.rawValue, rhs.rawValue)
    }

    /// Hashes the UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        IdentifierRules.hash(rawValue, into: &hasher)
    }
}
