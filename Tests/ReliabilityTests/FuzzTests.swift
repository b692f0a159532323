import Foundation
import TabKeepTestSupport
import Testing

@Suite("Fuzzing: the decoders of outside bytes, a bounded run each")
struct FuzzTests {
    /// Replays each target's committed corpus, then seeded mutations (`TABKEEP_SOAK=1`: 50 times
    /// more). The runner traps on any crash or broken round trip (a dump's through restore and
    /// dump again), so exit 0 means none; it exits 1 when a corpus input is refused.
    @Test(arguments: [("document", 20_000), ("dump", 300), ("message", 20_000), ("list", 20_000)])
    func eachDecoderSurvivesItsCorpusAndRandomMutations(target: String, runs: Int) throws {
        let soak = ProcessInfo.processInfo.environment["TABKEEP_SOAK"] == "1"
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fuzz/Corpus/\(target)").standardized.path
        let directory = TemporaryDirectory()
        let seed = UInt32.random(in: 1...UInt32.max)
        let result = try run(
            Built.fuzz,
            [target, "--runs", "\(soak ? runs * 50 : runs)", "--seed", "\(seed)", "--corpus", corpus],
            in: directory)
        #expect(result.status == 0, "seed \(seed): \(result.output)")
        #expect(result.output.contains("no crash"))
        // A target that accepts nothing never reaches its round trip: every seed must pass, so a
        // format change without Tools/make-fuzz-corpus.sh fails here.
        let counts = result.output.firstMatch(of: /(\d+) accepted \((\d+) of the corpus\)/)
        #expect((counts.flatMap { Int($0.output.2) } ?? 0) > 0, "no corpus input accepted: \(result.output)")
        #expect((counts.flatMap { Int($0.output.1) } ?? 0) > 0, "no input accepted: \(result.output)")
        report("fuzz (seed \(seed)) \(result.output.trimmingCharacters(in: .whitespacesAndNewlines))")
    }
}
