import TabKeepTestSupport
import Testing

@testable import TabKeep

/// ``VarintWord`` (eight bytes in one load) against the document reader's byte loop, its slow
/// twin: on valid, cut-short, overlong, overflowing and random bytes, the same value, the same
/// bytes read, and the same refusal.
@Suite struct VarintWordDifferentialPropertyTests {
    @Test func theWordAndTheByteLoopReadTheSameVarintsAndRefuseTheSameBytes() {
        var wordPathUsed = 0
        for bytes in VarintSamples.byteStrings(count: 20_000, seed: 0x7A41) {
            bytes.withUnsafeBufferPointer { buffer in
                var fast = ByteReader(buffer)
                var slow = ByteReader(buffer)
                let fastResult = Result { () throws(DocumentDecodingError) in try fast.varint() }
                let slowResult = Result { () throws(DocumentDecodingError) in try slow.varintByBytes() }
                #expect(fastResult == slowResult, "\(bytes)")
                if case .success = fastResult { #expect(fast.offset == slow.offset, "\(bytes)") }
                if bytes.count >= 10, bytes[0] >= 0x80, case .success = slowResult {
                    wordPathUsed += 1
                }
            }
        }
        // The samples reach the word path often, not by luck.
        #expect(wordPathUsed > 2_000)
    }

    @Test func theWordDecodesEveryShortestEncoding() {
        var random = SplitMix64(seed: 0x7A42)
        for bits in 0...64 {
            for _ in 0..<50 {
                let value = bits == 0 ? 0 : (random.next() >> UInt64(64 - bits)) | (1 << UInt64(bits - 1))
                var writer = ByteWriter()
                writer.varint(value)
                var bytes = writer.bytes
                let length = bytes.count
                while bytes.count < 10 { bytes.append(UInt8(truncatingIfNeeded: random.next())) }
                let decoded = bytes.withUnsafeBytes { VarintWord.decode(at: $0.baseAddress!) }
                #expect(decoded?.value == value && decoded?.length == length, "\(value)")
            }
        }
        // Overlong forms and overflows are left to the loop.
        let refused: [[UInt8]] = [
            [0x80, 0x00], [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00],
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02],
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x81],
        ]
        for bytes in refused {
            let padded = bytes + [UInt8](repeating: 0x55, count: 10)
            #expect(padded.withUnsafeBytes { VarintWord.decode(at: $0.baseAddress!) } == nil, "\(bytes)")
        }
    }
}
