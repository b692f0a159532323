import TabKeepTestSupport
import Testing

@testable import TabKeep
@testable import TabKeepSync

/// Random bytes (a fixed seed), bare and sealed, offered as sync messages.
@Suite struct BadInputPropertyTests {
    /// The fixture and the helpers of the hand-made bad inputs.
    let messages = BadInputTests()

    @Test func randomBytesAreRefused() throws {
        let directory = TemporaryDirectory()
        let (_, session, before) = try messages.fixture(directory)
        var random = SplitMix64(seed: 6)
        for round in 0..<2_000 {
            var bytes = (0..<Int.random(in: 0..<300, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            // Half of them past the magic and the CRC.
            if round % 2 == 0 {
                bytes = messages.sealed(SyncMessage.magic + [SyncMessage.formatVersion] + bytes)
            }
            #expect(
                messages.refusal(bytes, by: session) != nil,
                "round \(round), \(replayLine(seed: 6, filter: "BadInputPropertyTests"))")
        }
        #expect(try recordChecksum(session.store) == before)
    }
}
