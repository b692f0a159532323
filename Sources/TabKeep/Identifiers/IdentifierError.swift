/// An identifier that breaks a rule: which field, the offending value and the rule.
///
/// ```swift
/// do { _ = try TabID("") } catch { print(error) }  // invalid tab "": must be 1–64 UTF-8 bytes
/// ```
public struct IdentifierError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of identifier: "profile", "bar", "tab" or "replica".
    public var field: String
    /// The offending value, escaped for printing.
    public var value: String
    /// The rule the value broke, e.g. "must be 1–128 UTF-8 bytes".
    public var rule: String

    /// Makes an error for `field`, escaping `value` for printing.
    public init(field: String, value: String, rule: String) {
        self.field = field
        var escaped = ""
        for scalar in value.unicodeScalars.prefix(200) {
            escaped += scalar.escaped(asASCII: false)
        }
        self.value = escaped
        self.rule = rule
    }

    /// A sentence naming the field, the value and the rule.
    public var description: String { "invalid \(field) \"\(value)\": \(rule)" }
}
