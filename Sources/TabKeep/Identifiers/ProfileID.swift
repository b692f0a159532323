/// A user profile: whose tab bars these are.
///
/// Compared, hashed and ordered by its UTF-8 bytes (the order LMDB keys sort in), never by Unicode
/// equivalence.
///
/// ```swift
/// let id = try ProfileID("alice")
/// ```
public struct ProfileID: StringIdentifier {
    /// The identifier as given: 1–128 UTF-8 bytes, no NUL, no control characters.
    public let rawValue: String

    /// Validates `rawValue`; throws an error naming the field "profile" and the rule it broke.
    public init(_ rawValue: String) throws(IdentifierError) {
        try IdentifierRules.validate(rawValue, field: "profile", maxBytes: Self.maxBytes)
        self.rawValue = rawValue
    }

    /// An already validated value (decoding checks the bytes itself).
    package init(unchecked rawValue: String) {
        self.rawValue = rawValue
    }

    /// The longest identifier, in UTF-8 bytes.
    package static let maxBytes = 128
}
