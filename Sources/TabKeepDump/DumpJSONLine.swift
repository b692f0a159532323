import Foundation
import TabKeep

/// One parsed dump line: its bytes and a flat list of tokens, one per JSON value and member name,
/// in line order. Strings stay in the line until read, so reading a record allocates only what
/// it keeps (no tree of dictionaries).
final class DumpJSONLine {
    /// The kind of a token.
    enum Kind: UInt8 {
        case object, array, string, integer, boolTrue, boolFalse, null
    }

    /// One value or member name. Objects hold their members as name and value tokens in turn.
    struct Token {
        var kind: Kind
        /// A string that held an escape: its text is `escapedTexts[Int(number)]`.
        var escaped = false
        /// An integer's sign.
        var negative = false
        /// A string of ASCII bytes only, without an escape.
        var plain = false
        /// A string's bytes (without quotes) start here.
        var start = 0
        /// A string's bytes end here; an object's or array's last token is just before `end`.
        var end = 0
        /// An integer's magnitude, or the index of an escaped string's text.
        var number: UInt64 = 0
    }

    let bytes: [UInt8]
    let tokens: [Token]
    let escapedTexts: [String]

    /// Parses `bytes` strictly, or throws where the line stops being (acceptable) JSON.
    init(_ bytes: [UInt8]) throws(DumpJSONParser.Failure) {
        var parser = DumpJSONParser(bytes)
        try parser.parseLine()
        self.bytes = bytes
        tokens = parser.tokens
        escapedTexts = parser.escapedTexts
    }

    /// The whole line's value.
    var root: DumpJSONValue { DumpJSONValue(line: self, index: 0) }

    /// The text of the string token at `index`.
    func text(at index: Int) -> String {
        let token = tokens[index]
        if token.escaped { return escapedTexts[Int(token.number)] }
        // Checked as UTF-8 when parsed.
        return bytes.withUnsafeBufferPointer {
            ByteReader.text(UnsafeBufferPointer(rebasing: $0[token.start..<token.end]))!
        }
    }

    /// Whether the string token at `index` reads `name` (an ASCII member name of the format).
    func text(at index: Int, equals name: StaticString) -> Bool {
        let token = tokens[index]
        if token.escaped { return escapedTexts[Int(token.number)].utf8.elementsEqual(name.utf8Buffer) }
        guard token.end - token.start == name.utf8CodeUnitCount else { return false }
        return bytes.withUnsafeBufferPointer {
            memcmp($0.baseAddress! + token.start, name.utf8Start, name.utf8CodeUnitCount) == 0
        }
    }

    /// The raw bytes of the string token at `index` when it holds no escape, for identifiers.
    func withRawText<Result>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        let token = tokens[index]
        guard token.kind == .string, !token.escaped else { return nil }
        return bytes.withUnsafeBufferPointer {
            body(UnsafeBufferPointer(rebasing: $0[token.start..<token.end]))
        }
    }

    /// The index of the token after the value at `index` and everything inside it.
    func next(after index: Int) -> Int {
        switch tokens[index].kind {
        case .object, .array: tokens[index].end
        default: index + 1
        }
    }
}

/// One value of a parsed dump line. Numbers are integers only: the format has no others.
struct DumpJSONValue {
    let line: DumpJSONLine
    let index: Int

    private var token: DumpJSONLine.Token { line.tokens[index] }

    /// A short name of the kind, for messages.
    var kind: String {
        switch token.kind {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .integer: "a number"
        case .boolTrue, .boolFalse: "a boolean"
        case .null: "null"
        }
    }

    var isObject: Bool { token.kind == .object }
    var isArray: Bool { token.kind == .array }
    var isNull: Bool { token.kind == .null }
    /// Whether this is a string (its text not read).
    var isStringValue: Bool { token.kind == .string }

    /// The text, when this is a string.
    var string: String? { token.kind == .string ? line.text(at: index) : nil }

    /// Whether this is the string `text` (an ASCII word of the format).
    func isString(_ text: StaticString) -> Bool {
        token.kind == .string && line.text(at: index, equals: text)
    }

    /// The flag, when this is `true` or `false`.
    var bool: Bool? {
        switch token.kind {
        case .boolTrue: true
        case .boolFalse: false
        default: nil
        }
    }

    /// The sign and magnitude, when this is an integer, so all of `Int64` and `UInt64` round-trip.
    var integer: (negative: Bool, magnitude: UInt64)? {
        let token = token
        return token.kind == .integer ? (token.negative, token.number) : nil
    }

    /// The elements, when this is an array.
    var elements: [DumpJSONValue]? {
        guard token.kind == .array else { return nil }
        let end = token.end
        // Counted first: one allocation of the right size (entries are arrays, read by the million).
        var count = 0
        var child = index + 1
        while child < end {
            count += 1
            child = line.next(after: child)
        }
        var result: [DumpJSONValue] = []
        result.reserveCapacity(count)
        child = index + 1
        while child < end {
            result.append(DumpJSONValue(line: line, index: child))
            child = line.next(after: child)
        }
        return result
    }

    /// The members in line order, when this is an object.
    var members: [(name: String, value: DumpJSONValue)]? {
        guard token.kind == .object else { return nil }
        var result: [(name: String, value: DumpJSONValue)] = []
        var name = index + 1
        let end = token.end
        while name < end {
            result.append((line.text(at: name), DumpJSONValue(line: line, index: name + 1)))
            name = line.next(after: name + 1)
        }
        return result
    }

    /// The least (in `String` order) member name not in `allowed`, when this is an object that
    /// has one.
    func firstUnknownName(allowed: [StaticString]) -> String? {
        guard token.kind == .object else { return nil }
        var first: String?
        var child = index + 1
        let end = token.end
        while child < end {
            if !allowed.contains(where: { line.text(at: child, equals: $0) }) {
                let name = line.text(at: child)
                if first.map({ name < $0 }) ?? true { first = name }
            }
            child = line.next(after: child + 1)
        }
        return first
    }

    /// The member called `name`, when this is an object that has it.
    func member(_ name: StaticString) -> DumpJSONValue? {
        guard token.kind == .object else { return nil }
        var child = index + 1
        let end = token.end
        while child < end {
            if line.text(at: child, equals: name) { return DumpJSONValue(line: line, index: child + 1) }
            child = line.next(after: child + 1)
        }
        return nil
    }
}
