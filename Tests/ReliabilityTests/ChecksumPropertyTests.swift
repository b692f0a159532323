import Testing

import TabKeep
import TabKeepTestSupport

@Suite("CRC-32 through zlib")
struct ChecksumPropertyTests {
    /// The bitwise CRC-32, one bit at a time: slow and obviously right.
    func slowCRC32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test func zlibsChecksumMatchesTheBitwiseOneHoweverTheBytesArrive() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
        var random = SplitMix64(seed: 14)
        for length in [1, 7, 8, 9, 63, 64, 1_000, 65_537] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let expected = slowCRC32(bytes)
            #expect(
                CRC32.checksum(bytes) == expected,
                "length \(length), \(replayLine(seed: 14, filter: "ChecksumPropertyTests"))")
            var pieces = CRC32()
            let cut = Int(random.next() % UInt64(length))
            pieces.update(Array(bytes[..<cut]))
            pieces.update(bytes, from: cut)
            #expect(pieces.value == expected, "length \(length) cut at \(cut)")
            var byByte = CRC32()
            for byte in bytes.prefix(100) { byByte.update(byte: byte) }
            #expect(byByte.value == slowCRC32(Array(bytes.prefix(100))))
            var lazy = CRC32()
            lazy.update(bytes.lazy.map { $0 })
            #expect(lazy.value == expected)
        }
    }
}
