import TabKeep

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
        // Two appends, not an array literal: this runs about 200 times per document line.
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends a JSON string: quotes, backslashes and control characters escaped, other UTF-8 as is.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escape: append their bytes in one go.
        if !text.utf8.contains(where: {
            $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
        }) {
            bytes.append(contentsOf: text.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
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
        // Eighteen bytes made in a fixed buffer and appended at once: this runs three times per
        // entry, and an append per digit was a twentieth of a dump (perf).
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &text) { buffer in
            buffer[0] = UInt8(ascii: "\"")
            var value = replica.rawValue
            for index in stride(from: 16, through: 1, by: -1) {
                let digit = UInt8(truncatingIfNeeded: value & 0x0F)
                buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") - 10 + digit
                value >>= 4
            }
            buffer[17] = UInt8(ascii: "\"")
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<18]))
        }
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
        // The digits of `String(value)`, without making the String. Every caller passes a
        // value of at most 64 bits, so its magnitude fits a UInt64 (Int64.min's too).
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = UInt64(value.magnitude)
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                count += 1
                buffer[24 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(24 - count)...]))
        }
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
