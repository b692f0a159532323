/// A JSON value, written by the tools as one compact line (or indented, for the bench's report):
/// objects keep their keys in the order given, strings are escaped, numbers are written exactly.
///
///     let figures: JSON = .object([("schema", .integer(2)), ("replica", .string(id)), ("bars", .array([]))])
///     print(figures.text)  // {"schema":2,"replica":"…","bars":[]}
public enum JSON: Sendable {
    /// Members in the order written.
    case object([(String, JSON)])
    case array([JSON])
    case string(String)
    case integer(Int)
    /// A finite double, written the shortest way that reads back the same; not finite: `null`.
    case double(Double)
    case bool(Bool)
    case null

    /// A string, or `null` for nil.
    public static func string(_ text: String?) -> JSON { text.map { .string($0) } ?? .null }

    /// An integer of any width (counts, sequence numbers, page sizes), or `null` for nil.
    public static func integer(_ number: (some BinaryInteger)?) -> JSON {
        number.map { .integer(Int($0)) } ?? .null
    }

    /// An array of strings.
    public static func strings(_ texts: some Sequence<String>) -> JSON { .array(texts.map { .string($0) }) }

    /// The value on one line, without spaces.
    public var text: String {
        var output = ""
        write(to: &output, indent: nil, depth: 0)
        return output
    }

    /// The value indented by `spaces` a level, `"key" : value` (the layout of Foundation's
    /// `JSONEncoder` with `.prettyPrinted`).
    public func indentedText(spaces: Int = 2) -> String {
        var output = ""
        write(to: &output, indent: String(repeating: " ", count: spaces), depth: 0)
        return output
    }

    private func write(to output: inout String, indent: String?, depth: Int) {
        switch self {
        case .object(let members):
            guard !members.isEmpty else {
                output += "{}"
                return
            }
            output += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output += "," }
                Self.newline(&output, indent, depth + 1)
                Self.quote(key, into: &output)
                output += indent == nil ? ":" : " : "
                value.write(to: &output, indent: indent, depth: depth + 1)
            }
            Self.newline(&output, indent, depth)
            output += "}"
        case .array(let items):
            guard !items.isEmpty else {
                output += "[]"
                return
            }
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                Self.newline(&output, indent, depth + 1)
                item.write(to: &output, indent: indent, depth: depth + 1)
            }
            Self.newline(&output, indent, depth)
            output += "]"
        case .string(let text): Self.quote(text, into: &output)
        case .integer(let number): output += String(number)
        case .double(let number): output += Self.number(number)
        case .bool(let value): output += value ? "true" : "false"
        case .null: output += "null"
        }
    }

    private static func newline(_ output: inout String, _ indent: String?, _ depth: Int) {
        guard let indent else { return }
        output += "\n" + String(repeating: indent, count: depth)
    }

    /// A double as JSON: Swift's shortest round trip, integral values without `.0` (`4`, `0.25`,
    /// `1e+20`), as Foundation's `JSONEncoder` writes them.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// `text` as a JSON string literal: `"`, `\\` and control characters escaped, everything else
    /// (`/` too) as UTF-8.
    static func quote(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
