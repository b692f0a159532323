/// A small strict reader of the XML S3 answers with: an optional `<?xml …?>` declaration,
/// comments, elements (attributes read and dropped), text with the five named entities and
/// numeric character references. Everything else — a DOCTYPE, CDATA, a processing instruction in
/// the body, a mismatched or unclosed tag, bytes that are not UTF-8, nesting deeper than 8 or more
/// than 80,000 elements — is refused with ``S3Error/malformedResponse(reason:)``.
struct XMLReader {
    private let bytes: [UInt8]
    private var index = 0
    private var elements = 0

    static let maxDepth = 8
    static let maxElements = 8 * S3XML.maxObjectsPerPage

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The root element of the whole input.
    mutating func document() throws(S3Error) -> S3XML.Element {
        guard String(validating: bytes, as: UTF8.self) != nil, !bytes.contains(0) else {
            throw fail("the answer is not UTF-8 text")
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipSpace()
        if starts("<?xml") {
            guard let end = find(Array("?>".utf8)) else { throw fail("an unterminated XML declaration") }
            index = end + 2
        }
        try skipMisc()
        guard starts("<"), !starts("</") else { throw fail("no root element") }
        let root = try element(depth: 0)
        try skipMisc()
        guard index == bytes.count else { throw fail("bytes after the root element") }
        return root
    }

    private mutating func element(depth: Int) throws(S3Error) -> S3XML.Element {
        elements += 1
        guard depth < XMLReader.maxDepth, elements <= XMLReader.maxElements else {
            throw fail("nested too deep or too many elements")
        }
        index += 1  // "<"
        let name = try self.name()
        let element = S3XML.Element(name: name)
        // Attributes: name="value" or name='value', dropped.
        while true {
            skipSpace()
            guard index < bytes.count else { throw fail("an unterminated tag <\(name)>") }
            if starts("/>") {
                index += 2
                return element
            }
            if bytes[index] == UInt8(ascii: ">") {
                index += 1
                break
            }
            _ = try self.name()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                throw fail("an attribute without a value")
            }
            index += 1
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'")
            else {
                throw fail("an unquoted attribute value")
            }
            let quote = bytes[index]
            guard let end = bytes[(index + 1)...].firstIndex(of: quote) else {
                throw fail("an unterminated attribute value")
            }
            _ = try decodeText(index + 1, end)
            index = end + 1
        }
        // Content: text, comments and child elements, up to the matching end tag.
        var text = ""
        while true {
            guard index < bytes.count else { throw fail("<\(name)> is not closed") }
            if starts("</") {
                index += 2
                let closing = try self.name()
                skipSpace()
                guard closing == name, index < bytes.count, bytes[index] == UInt8(ascii: ">") else {
                    throw fail("</\(closing)> does not close <\(name)>")
                }
                index += 1
                element.text = text
                return element
            }
            if starts("<!--") {
                try skipComment()
            } else if starts("<") {
                guard !starts("<!"), !starts("<?") else { throw fail("markup S3 does not send (<! or <?)") }
                element.children.append(try self.element(depth: depth + 1))
            } else {
                let end = bytes[index...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
                text += try decodeText(index, end)
                index = end
            }
        }
    }

    /// A tag or attribute name: letters, digits, `_ - . :`, not starting with a digit or `-`/`.`.
    private mutating func name() throws(S3Error) -> String {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            let letter =
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
            let other =
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
            guard letter || (other && index > start) else { break }
            index += 1
        }
        guard index > start, index - start <= 256 else { throw fail("a bad element or attribute name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// Text between `start` and `end` with entities and character references replaced.
    private func decodeText(_ start: Int, _ end: Int) throws(S3Error) -> String {
        var out: [UInt8] = []
        var position = start
        while position < end {
            let byte = bytes[position]
            guard byte == UInt8(ascii: "&") else {
                guard byte != UInt8(ascii: "<") else { throw fail("a < in text") }
                out.append(byte)
                position += 1
                continue
            }
            guard let semicolon = bytes[position..<min(end, position + 12)].firstIndex(of: UInt8(ascii: ";"))
            else {
                throw fail("an unterminated entity")
            }
            let entity = String(decoding: bytes[(position + 1)..<semicolon], as: UTF8.self)
            let named: [String: String] = ["lt": "<", "gt": ">", "amp": "&", "quot": "\"", "apos": "'"]
            if let value = named[entity] {
                out += Array(value.utf8)
            } else if entity.hasPrefix("#") {
                let digits = entity.dropFirst()
                let code =
                    digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
                guard let code, code != 0, let scalar = Unicode.Scalar(code) else {
                    throw fail("a bad character reference &\(entity);")
                }
                out += Array(String(Character(scalar)).utf8)
            } else {
                throw fail("an unknown entity")
            }
            position = semicolon + 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func skipMisc() throws(S3Error) {
        while true {
            skipSpace()
            guard starts("<!--") else { return }
            try skipComment()
        }
    }

    private mutating func skipComment() throws(S3Error) {
        guard let end = find(Array("-->".utf8)) else { throw fail("an unterminated comment") }
        index = end + 3
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private func starts(_ text: String) -> Bool {
        bytes[index...].starts(with: text.utf8)
    }

    /// Where `needle` next starts at or after the current index.
    private func find(_ needle: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        var position = index
        while position + needle.count <= bytes.count {
            if bytes[position] == needle[0], bytes[position..<(position + needle.count)].elementsEqual(needle)
            {
                return position
            }
            position += 1
        }
        return nil
    }

    private func fail(_ reason: String) -> S3Error {
        .malformedResponse(reason: "the XML does not parse (\(reason) at byte \(index))")
    }
}
