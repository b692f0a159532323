#if !FUZZING
    import Foundation

    /// Without libFuzzer: replays a target's corpus, then runs seeded random mutations of it.
    ///
    /// ```
    /// tabkeep-fuzz document --runs 20000 --seed 1 [--corpus Tests/Fuzz/Corpus/document]
    /// tabkeep-fuzz make-corpus Tests/Fuzz/Corpus
    /// ```
    @main
    struct FuzzRunner {
        static func main() throws {
            let arguments = Array(CommandLine.arguments.dropFirst())
            var options: [String: String] = [:]
            var index = 1
            while index + 1 < arguments.count {
                options[String(arguments[index].drop(while: { $0 == "-" }))] = arguments[index + 1]
                index += 2
            }
            if arguments.first == "make-corpus", arguments.count >= 2 {
                try SeedCorpus.write(to: arguments[1])
                return
            }
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                print("usage: tabkeep-fuzz document|dump|message|list [--runs N] [--seed S] [--corpus DIR]")
                exit(2)
            }
            let directory = options["corpus"] ?? "Tests/Fuzz/Corpus/\(target.rawValue)"
            let runs = Int(options["runs"] ?? "10000") ?? 10_000
            var random = Mutator(seed: UInt64(options["seed"] ?? "1") ?? 1)
            let corpus = try FileManager.default.contentsOfDirectory(atPath: directory).sorted().map {
                [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + $0)))
            }
            guard !corpus.isEmpty else {
                print("no corpus in \(directory)")
                exit(1)
            }
            var accepted = 0
            for input in corpus where target.run(input) { accepted += 1 }
            let seedsAccepted = accepted
            for _ in 0..<runs where target.run(random.mutate(corpus)) { accepted += 1 }
            try? FileManager.default.removeItem(atPath: FuzzTarget.scratchPath)
            DumpRoundTrip.removeScratch()
            print(
                "\(target.rawValue): \(corpus.count + runs) executions (\(corpus.count) corpus, \(runs) mutations), "
                    + "\(accepted) accepted (\(seedsAccepted) of the corpus), no crash")
            // A corpus the decoder refuses tests nothing past the first check: regenerate it.
            guard seedsAccepted == corpus.count else {
                print(
                    "\(target.rawValue): only \(seedsAccepted) of \(corpus.count) corpus inputs accepted; "
                        + "run Tools/make-fuzz-corpus.sh")
                exit(1)
            }
        }
    }
#endif
