/// A LEB128 varint decoded from one 64-bit load (and at most two more bytes), without a loop.
///
/// Stamps (hybrid logical times, nine bytes) and dot sequences are long varints in every entry,
/// and reading them a byte at a time was a twelfth of a launch read. The readers take this path
/// when ten bytes are left to read; a varint that is not in its shortest form, one that overflows
/// 64 bits, or one near the buffer's end goes through their byte loop, the slow twin, which also
/// names every refusal. The differential tests of each reader (`VarintWordDifferentialPropertyTests`
/// and its sync and dump siblings) hold the two to the same values, lengths and refusals.
///
/// ```swift
/// if let (value, length) = VarintWord.decode(at: pointer) { offset += length }
/// ```
package enum VarintWord {
    /// The value and length of the varint at `bytes`, which must have ten bytes readable, when it
    /// is in its shortest form and fits 64 bits; nil otherwise, for the byte loop to decide.
    @inline(__always)
    package static func decode(at bytes: UnsafeRawPointer) -> (value: UInt64, length: Int)? {
        let word = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        // A byte without its top bit ends the varint; the lowest such byte is the last.
        let ends = ~word & 0x8080_8080_8080_8080
        if ends != 0 {
            let length = (ends.trailingZeroBitCount + 1) >> 3
            // A last byte of zero after others is an overlong encoding: the loop refuses it.
            if length > 1 && (word >> UInt64(8 * (length - 1))) & 0xFF == 0 { return nil }
            // The payload bits of the varint's bytes: every bit up to the last byte's top bit.
            return (packed(word & (ends ^ (ends &- 1))), length)
        }
        // Eight continuation bytes: 56 bits, then a ninth byte, and a tenth that may only be 1.
        let low = packed(word)
        let ninth = bytes.load(fromByteOffset: 8, as: UInt8.self)
        if ninth < 0x80 { return ninth == 0 ? nil : (low | UInt64(ninth) << 56, 9) }
        guard bytes.load(fromByteOffset: 9, as: UInt8.self) == 1 else { return nil }
        return (low | UInt64(ninth & 0x7F) << 56 | 1 << 63, 10)
    }

    /// The 7-bit groups of eight bytes closed up: 14 bits per 16-bit lane, 28 per 32, 56 in all.
    @inline(__always)
    private static func packed(_ word: UInt64) -> UInt64 {
        var bits = word & 0x7F7F_7F7F_7F7F_7F7F
        bits = ((bits & 0x7F00_7F00_7F00_7F00) >> 1) | (bits & 0x007F_007F_007F_007F)
        bits = ((bits & 0x3FFF_0000_3FFF_0000) >> 2) | (bits & 0x0000_3FFF_0000_3FFF)
        return ((bits & 0x0FFF_FFFF_0000_0000) >> 4) | (bits & 0x0000_0000_0FFF_FFFF)
    }
}
