import TabKeepTestSupport
import Testing

@testable import TabKeepDump

/// The dump transcoder's varint (one eight-byte load, `VarintWord`) against its byte loop: the
/// same values and bytes read, and nil for the same broken varints.
@Suite struct DumpVarintDifferentialPropertyTests {
    @Test func theWordAndTheByteLoopReadTheSameVarintsAndRefuseTheSameBytes() {
        for bytes in VarintSamples.byteStrings(count: 20_000, seed: 0xD441) {
            bytes.withUnsafeBufferPointer { buffer in
                var fast = DumpTranscoder.Reader(buffer)
                var slow = DumpTranscoder.Reader(buffer)
                let fastValue = fast.varint()
                let slowValue = slow.varintByBytes()
                #expect(fastValue == slowValue, "\(bytes)")
                if fastValue != nil { #expect(fast.offset == slow.offset, "\(bytes)") }
            }
        }
    }
}
