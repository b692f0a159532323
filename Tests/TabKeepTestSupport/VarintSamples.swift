import TabKeep

/// Byte strings that start with a varint or something close to one, for the differential tests of
/// ``VarintWord`` against each reader's byte loop: valid encodings of every length from one to
/// ten bytes (values near each length's edges), the same cut short, overlong forms (a zero last
/// byte), overflows in the tenth byte, runs of continuation bytes and plain random bytes, each
/// followed by 0 to 12 random bytes so that the eight-byte load both fits and does not.
package enum VarintSamples {
    /// `count` samples from `seed`, plus the fixed edge cases.
    package static func byteStrings(count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SplitMix64(seed: seed)
        var samples: [[UInt8]] = [
            [0x80, 0x00], [0xFF, 0x00], [0x80, 0x80, 0x00, 1, 2, 3, 4, 5, 6, 7],
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0],  // 2^56 − 1, eight bytes
            [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0, 0],  // 2^56, nine bytes
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],  // UInt64.max
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02],  // overflows
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],  // eleven bytes
            [0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00],  // overlong in the eighth byte
            [], [0x80], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
        ]
        for _ in 0..<count {
            var bytes: [UInt8]
            switch random.next() % 6 {
            case 0, 1:
                // A valid encoding: a value of a random bit length, so every byte count comes up.
                let bits = Int(random.next() % 65)
                let value = bits == 0 ? 0 : (random.next() >> UInt64(64 - bits)) | (1 << UInt64(bits - 1))
                var writer = ByteWriter()
                writer.varint(value)
                bytes = writer.bytes
            case 2:
                // Continuation bytes, then a last byte that may be zero (overlong) or large.
                let length = 1 + Int(random.next() % 11)
                bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) | 0x80 }
                bytes.append(random.next() % 3 == 0 ? 0 : UInt8(truncatingIfNeeded: random.next()) & 0x7F)
            case 3:
                // A valid encoding cut short.
                var writer = ByteWriter()
                writer.varint(random.next() | (1 << 40))
                bytes = Array(writer.bytes.prefix(Int(random.next() % UInt64(writer.bytes.count))))
            default:
                bytes = (0..<Int(random.next() % 12)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            }
            if random.next() % 4 != 0 {
                bytes += (0..<Int(random.next() % 13)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            }
            samples.append(bytes)
        }
        return samples
    }
}
