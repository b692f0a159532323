import TabKeep

/// A parsed JSON value of a dump line. Numbers are integers only: the format has no others.
enum DumpJSONValue: Hashable, Sendable {
    case object([String: DumpJSONValue])
    case array([DumpJSONValue])
    case string(String)
    /// An integer: its sign and magnitude, so all of `Int64` and `UInt64` round-trip exactly.
    case integer(negative: Bool, magnitude: UInt64)
    case bool(Bool)
    case null

    /// A short name of the kind, for messages.
    var kind: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .integer: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}

/// A strict JSON parser for one line: RFC 8259 without fractions or exponents, no duplicate
/// names in an object, valid UTF-8, nesting at most 32 deep, nothing after the value.
struct DumpJSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    /// Why the text is not (acceptable) JSON, with the column it was found at.
    struct Failure: Error {
        var column: Int
        var reason: String
    }

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses `bytes`, which must hold exactly one value (whitespace around it allowed).
    static func parse(_ bytes: [UInt8]) throws(Failure) -> DumpJSONValue {
        var parser = DumpJSONParser(bytes)
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        if parser.index < bytes.count { throw parser.failure("unexpected text after the value") }
        return value
    }

    private func failure(_ reason: String) -> Failure {
        Failure(column: index + 1, reason: reason)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0D, 0x0A].contains(bytes[index]) { index += 1 }
    }

    private mutating func value() throws(Failure) -> DumpJSONValue {
        guard index < bytes.count else { throw failure("unexpected end of line") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected character")
        }
    }

    private mutating func literal(_ word: String, _ result: DumpJSONValue) throws(Failure) -> DumpJSONValue {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected
        else { throw failure("unexpected character") }
        index += expected.count
        return result
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > 32 { throw failure("nested more than 32 deep") }
    }

    private mutating func object() throws(Failure) -> DumpJSONValue {
        try enter()
        index += 1
        var members: [String: DumpJSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of line in an object") }
            guard bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let nameColumn = index + 1
            let name = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw failure("expected ':'")
            }
            index += 1
            skipWhitespace()
            let member = try value()
            if members.updateValue(member, forKey: name) != nil {
                throw Failure(column: nameColumn, reason: "duplicate member name \"\(name)\"")
            }
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of line in an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
            index += 1
            depth -= 1
            return .object(members)
        }
    }

    private mutating func array() throws(Failure) -> DumpJSONValue {
        try enter()
        index += 1
        var elements: [DumpJSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value())
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of line in an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw failure("expected ',' or ']'") }
            index += 1
            depth -= 1
            return .array(elements)
        }
    }

    private mutating func number() throws(Failure) -> DumpJSONValue {
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        let start = index
        var magnitude: UInt64 = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            let (times, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            if overflow1 || overflow2 { throw failure("number out of range") }
            magnitude = sum
            index += 1
        }
        if index == start { throw failure("expected a digit") }
        if index - start > 1 && bytes[start] == UInt8(ascii: "0") {
            throw failure("number with a leading zero")
        }
        if index < bytes.count,
            [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index])
        {
            throw failure("only integers are allowed")
        }
        return .integer(negative: negative, magnitude: magnitude)
    }

    private mutating func string() throws(Failure) -> String {
        index += 1
        // Most strings hold no escape: make them straight from the line, with no scratch array.
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"),
            bytes[end] >= 0x20
        {
            end += 1
        }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            let start = index
            let text = bytes.withUnsafeBufferPointer {
                ByteReader.text(UnsafeBufferPointer(rebasing: $0[start..<end]))
            }
            guard let text else { throw failure("string is not valid UTF-8") }
            index = end + 1
            return text
        }
        var scalars: [UInt8] = []
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = scalars.withUnsafeBufferPointer({ ByteReader.text($0) }) else {
                    throw failure("string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw failure("unterminated string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw failure("unpaired surrogate") }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw failure("unpaired surrogate")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw failure("invalid \\u escape") }
                    scalars.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    throw failure("invalid escape")
                }
            case 0..<0x20:
                throw failure("control character in a string")
            default:
                scalars.append(byte)
                index += 1
            }
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard bytes.count - index >= 4 else { throw failure("invalid \\u escape") }
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexValue(bytes[index]) else { throw failure("invalid \\u escape") }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return code
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
