import TabKeepTestSupport
import Testing

@testable import TabKeep

/// `CRC32.update` (folded with carry-less multiplication where the processor has it) against
/// zlib's `crc32` alone: every length around the fold's block sizes, every alignment, any
/// running value, and inputs split into random pieces.
@Suite struct CRC32DifferentialPropertyTests {
    @Test func theFoldedChecksumIsZlibsForEveryLengthAlignmentAndSplit() {
        #if arch(x86_64) && os(Linux)
            // This machine's kind has carry-less multiplication: the fast path is what is tested.
            #expect(CRC32.folds)
        #endif
        var random = SplitMix64(seed: 0xC3C)
        let pool = (0..<4_200).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        pool.withUnsafeBytes { pool in
            var lengths = Array(0...300) + [511, 512, 513, 1_023, 1_024, 1_025, 4_095]
            lengths += (0..<200).map { _ in Int(random.next() % 4_096) }
            for length in lengths {
                let offset = Int(random.next() % 16)
                let bytes = UnsafeRawBufferPointer(rebasing: pool[offset..<(offset + length)])
                var start = CRC32()
                start.updateByZlib(UnsafeRawBufferPointer(rebasing: pool[0..<Int(random.next() % 9)]))
                var fast = start
                var slow = start
                fast.update(bytes)
                slow.updateByZlib(bytes)
                #expect(fast == slow, "length \(length) at offset \(offset)")
                // The same bytes in random pieces.
                var pieces = start
                var cut = 0
                while cut < length {
                    let piece = min(length - cut, 1 + Int(random.next() % 200))
                    pieces.update(UnsafeRawBufferPointer(rebasing: bytes[cut..<(cut + piece)]))
                    cut += piece
                }
                #expect(pieces == slow, "length \(length) in pieces")
            }
        }
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8](repeating: 0x61, count: 1_000)) == 0x9A38_DA03)
    }
}
