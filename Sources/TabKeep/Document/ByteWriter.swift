/// Appends the primitives of the binary formats: bytes, LEB128 varints, fixed 64-bit and strings.
/// Shared by the document encoding and, within the package, the sync message encoding.
package struct ByteWriter {
    package var bytes: [UInt8] = []

    package init() {}

    package mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    /// Unsigned LEB128, minimal length.
    package mutating func varint(_ value: UInt64) {
        if value < 0x80 {
            bytes.append(UInt8(value))
            return
        }
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Zigzag then LEB128.
    package mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Eight bytes, big-endian.
    package mutating func fixed64(_ value: UInt64) {
        // One append of the big-endian representation instead of eight.
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Four bytes, big-endian.
    package mutating func fixed32(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }

    /// Length-prefixed UTF-8.
    package mutating func string(_ value: String) {
        varint(UInt64(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    /// Length-prefixed bytes.
    package mutating func data(_ value: [UInt8]) {
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }
}
