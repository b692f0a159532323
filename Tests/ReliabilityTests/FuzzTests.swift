import Foundation
import Testing

@Suite("Fuzzing: the decoders of outside bytes, a bounded run each")
struct FuzzTests {
    /// Replays each target's committed corpus, then seeded mutations (`TABKEEP_SOAK=1`: 50 times
    /// more). The runner traps on any crash or broken round trip, so exit 0 means none.
    @Test(arguments: [("document", 20_000), ("dump", 300), ("message", 20_000)])
    func eachDecoderSurvivesItsCorpusAndRandomMutations(target: String, runs: Int) throws {
        let soak = ProcessInfo.processInfo.environment["TABKEEP_SOAK"] == "1"
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fuzz/Corpus/\(target)").standardized.path
        let directory = TestDirectory()
        let seed = UInt32.random(in: 1...UInt32.max)
        let result = try run(
            Built.fuzz,
            [target, "--runs", "\(soak ? runs * 50 : runs)", "--seed", "\(seed)", "--corpus", corpus],
            in: directory)
        #expect(result.status == 0, "seed \(seed): \(result.output)")
        #expect(result.output.contains("no crash"))
        report("fuzz (seed \(seed)) \(result.output.trimmingCharacters(in: .whitespacesAndNewlines))")
    }
}
