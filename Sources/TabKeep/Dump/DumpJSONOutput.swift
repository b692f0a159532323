/// Hand-written JSON for dump lines: fast, and byte-for-byte deterministic.
struct DumpJSONOutput {
    /// The bytes written so far.
    var bytes: [UInt8] = []

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends ASCII text as it is (punctuation and names known to need no escaping).
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends `"name":`.
    mutating func name(_ text: StaticString) {
        bytes.append(UInt8(ascii: "\""))
        raw(text)
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    /// Appends a JSON string: quotes, backslashes and control characters escaped, other UTF-8 as is.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends a replica id as a JSON string of 16 lowercase hex digits: the bytes of
    /// `string(replica.description)`, without making the String.
    mutating func replica(_ replica: ReplicaID) {
        bytes.append(UInt8(ascii: "\""))
        var shift = 60
        while shift >= 0 {
            bytes.append(Self.hexDigits[Int((replica.rawValue >> UInt64(shift)) & 0x0F)])
            shift -= 4
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends a dot as the JSON string "REPLICA:SEQUENCE" (the bytes of `string(dot.description)`).
    mutating func dot(_ dot: Dot) {
        replica(dot.replica)
        bytes.removeLast()  // reopen the string after the replica's closing quote
        bytes.append(UInt8(ascii: ":"))
        integer(dot.sequence)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends a decimal integer.
    mutating func integer(_ value: some BinaryInteger) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Appends `true` or `false`.
    mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// Appends lowercase hex digits of `data` as a JSON string.
    mutating func hexString(_ data: some Sequence<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        for byte in data {
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0x0F)])
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends a JSON array of strings.
    mutating func stringArray(_ values: [String]) {
        raw("[")
        for (index, value) in values.enumerated() {
            if index > 0 { raw(",") }
            string(value)
        }
        raw("]")
    }
}
