import TabKeepTestSupport
import Testing

@testable import TabKeepSync

/// The sync message reader's varint (one eight-byte load, `VarintWord`) against its byte loop:
/// the same values, bytes read and refusals, on valid and broken varints near and far from the
/// message's end.
@Suite struct MessageVarintDifferentialPropertyTests {
    @Test func theWordAndTheByteLoopReadTheSameVarintsAndRefuseTheSameBytes() {
        for bytes in VarintSamples.byteStrings(count: 20_000, seed: 0x5A41) {
            // A message slice that starts past a prefix, so offsets other than zero are read.
            let message = [0xEE, 0xEE] + bytes
            var fast = MessageReader(message, start: 2, end: message.count)
            var slow = MessageReader(message, start: 2, end: message.count)
            let fastResult = Result { () throws(SyncError) in try fast.varint("the value") }
            let slowResult = Result { () throws(SyncError) in try slow.varintByBytes("the value") }
            #expect(fastResult == slowResult, "\(bytes)")
            #expect(fast.offset == slow.offset, "\(bytes)")
        }
    }
}
