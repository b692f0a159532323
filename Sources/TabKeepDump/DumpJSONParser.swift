import TabKeep

/// The strict JSON parser of dump lines: RFC 8259 without fractions or exponents, no duplicate
/// names in an object, valid UTF-8, nesting at most 32 deep, nothing after the value. It fills a
/// ``DumpJSONLine``'s tokens in one pass.
struct DumpJSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private(set) var tokens: [DumpJSONLine.Token] = []
    private(set) var escapedTexts: [String] = []

    /// Why the text is not (acceptable) JSON, with the column it was found at.
    struct Failure: Error {
        var column: Int
        var reason: String
    }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        tokens.reserveCapacity(bytes.count / 8)
    }

    /// Parses the line, which must hold exactly one value (whitespace around it allowed).
    mutating func parseLine() throws(Failure) {
        skipWhitespace()
        try value()
        skipWhitespace()
        if index < bytes.count { throw failure("unexpected text after the value") }
    }

    private func failure(_ reason: String) -> Failure {
        Failure(column: index + 1, reason: reason)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D, 0x0A: index += 1
            default: return
            }
        }
    }

    private mutating func value() throws(Failure) {
        guard index < bytes.count else { throw failure("unexpected end of line") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try object()
        case UInt8(ascii: "["): try array()
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true", .boolTrue)
        case UInt8(ascii: "f"): try literal("false", .boolFalse)
        case UInt8(ascii: "n"): try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw failure("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString, _ kind: DumpJSONLine.Kind) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count, bytes[index..<index + count].elementsEqual(word.utf8Buffer)
        else { throw failure("unexpected character") }
        index += count
        tokens.append(DumpJSONLine.Token(kind: kind))
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > 32 { throw failure("nested more than 32 deep") }
    }

    private mutating func object() throws(Failure) {
        try enter()
        index += 1
        let objectToken = tokens.count
        tokens.append(DumpJSONLine.Token(kind: .object))
        defer { depth -= 1 }
        var count = 0
        var texts: Set<String>?
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            tokens[objectToken].end = tokens.count
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of line in an object") }
            guard bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let nameColumn = index + 1
            let nameToken = tokens.count
            try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw failure("expected ':'")
            }
            index += 1
            skipWhitespace()
            try value()
            // Checked after the value, as a dictionary insert would find it.
            if let duplicate = duplicateName(nameToken, in: objectToken, count: count, texts: &texts) {
                throw Failure(column: nameColumn, reason: "duplicate member name \"\(duplicate)\"")
            }
            count += 1
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of line in an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
            index += 1
            tokens[objectToken].end = tokens.count
            return
        }
    }

    /// The name at `nameToken` if the object at `objectToken` already has it among its first
    /// `count` members. Names compare as Swift strings (canonical equivalence), as the dictionary
    /// of the earlier tree parser did: plain ASCII names of a small object byte by byte, in place;
    /// any other name, or a larger object, through `texts`, made once.
    private func duplicateName(
        _ nameToken: Int, in objectToken: Int, count: Int, texts: inout Set<String>?
    ) -> String? {
        let name = tokens[nameToken]
        if texts == nil {
            if count < 16 && name.plain {
                var other = objectToken + 1
                while other < nameToken {
                    let seen = tokens[other]
                    if seen.end - seen.start == name.end - name.start
                        && bytes[seen.start..<seen.end].elementsEqual(bytes[name.start..<name.end])
                    {
                        return text(nameToken)
                    }
                    other = next(after: other + 1)
                }
                return nil
            }
            var seen: Set<String> = []
            var other = objectToken + 1
            while other < nameToken {
                seen.insert(text(other))
                other = next(after: other + 1)
            }
            texts = seen
        }
        let text = text(nameToken)
        return texts!.insert(text).inserted ? nil : text
    }

    private func next(after index: Int) -> Int {
        switch tokens[index].kind {
        case .object, .array: tokens[index].end
        default: index + 1
        }
    }

    private func text(_ token: Int) -> String {
        let token = tokens[token]
        if token.escaped { return escapedTexts[Int(token.number)] }
        return String(decoding: bytes[token.start..<token.end], as: UTF8.self)
    }

    private mutating func array() throws(Failure) {
        try enter()
        index += 1
        let arrayToken = tokens.count
        tokens.append(DumpJSONLine.Token(kind: .array))
        defer { depth -= 1 }
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            tokens[arrayToken].end = tokens.count
            return
        }
        while true {
            skipWhitespace()
            try value()
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of line in an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw failure("expected ',' or ']'") }
            index += 1
            tokens[arrayToken].end = tokens.count
            return
        }
    }

    private mutating func number() throws(Failure) {
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        let start = index
        var magnitude: UInt64 = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
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
            bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "e")
                || bytes[index] == UInt8(ascii: "E")
        {
            throw failure("only integers are allowed")
        }
        tokens.append(DumpJSONLine.Token(kind: .integer, negative: negative, number: magnitude))
    }

    private mutating func string() throws(Failure) {
        index += 1
        // Most strings hold no escape: they stay in the line, checked here and read when needed.
        // The scan runs over the buffer: this loop is the parser's hottest (profiled on restore).
        let (end, ascii) = bytes.withUnsafeBufferPointer { buffer -> (Int, Bool) in
            var end = index
            var ascii = true
            while end < buffer.count {
                let byte = buffer[end]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                if byte >= 0x80 { ascii = false }
                end += 1
            }
            return (end, ascii)
        }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            let start = index
            if !ascii {
                let valid = bytes.withUnsafeBufferPointer {
                    ByteReader.text(UnsafeBufferPointer(rebasing: $0[start..<end])) != nil
                }
                guard valid else { throw failure("string is not valid UTF-8") }
            }
            tokens.append(DumpJSONLine.Token(kind: .string, plain: ascii, start: start, end: end))
            index = end + 1
            return
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
                tokens.append(
                    DumpJSONLine.Token(kind: .string, escaped: true, number: UInt64(escapedTexts.count)))
                escapedTexts.append(text)
                return
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

extension StaticString {
    /// The UTF-8 bytes, as a collection.
    var utf8Buffer: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: utf8Start, count: utf8CodeUnitCount)
    }
}
