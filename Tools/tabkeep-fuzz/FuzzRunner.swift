#if !FUZZING
    import Foundation
    import ToolSupport

    /// Without libFuzzer: replays a target's corpus, then runs seeded random mutations of it.
    ///
    /// ```
    /// tabkeep-fuzz document --runs 20000 --seed 1 [--corpus Tests/Fuzz/Corpus/document]
    /// tabkeep-fuzz make-corpus Tests/Fuzz/Corpus
    /// ```
    @main
    struct FuzzRunner {
        static let runs = Option(name: "runs", placeholder: "N", help: "mutations to run (default 10000)") {
            (text) throws(UsageError) in
            guard let runs = Int(text), runs >= 0 else {
                throw UsageError("--runs: \"\(text)\" is not a whole number")
            }
            return runs
        }
        static let seed = Option(
            name: "seed", placeholder: "S", help: "the mutations' random seed (default 1)"
        ) {
            (text) throws(UsageError) in
            guard let seed = UInt64(text) else {
                throw UsageError("--seed: \"\(text)\" is not a whole number")
            }
            return seed
        }
        static let corpus = Option(
            name: "corpus", placeholder: "DIR", help: "the corpus (default Tests/Fuzz/Corpus/TARGET)")
        static let directory = Positional("DIR", help: "where each target's seed corpus goes")

        static func main() {
            let targets = FuzzTarget.allCases.map { target in
                Command(
                    name: target.rawValue,
                    summary: "Replay the \(target.rawValue) corpus, then mutations of it.",
                    details: "",
                    syntax: CommandSyntax(flags: [.optional(runs), .optional(seed), .optional(corpus)])
                ) { arguments in try replay(target, arguments) }
            }
            let makeCorpus = Command(
                name: "make-corpus",
                summary: "Write the seed corpus of every target (Tools/make-fuzz-corpus.sh).",
                details: "", syntax: CommandSyntax(positionals: [directory])
            ) { arguments in
                try SeedCorpus.write(to: arguments.value(of: directory))
                return 0
            }
            let tool = CommandLineTool(
                name: "tabkeep-fuzz",
                overviewHeader: ["tabkeep-fuzz: the decoders' fuzz targets, without libFuzzer."],
                commands: targets + [makeCorpus], helpExample: "document")
            exit(tool.run(Array(CommandLine.arguments.dropFirst())))
        }

        static func replay(_ target: FuzzTarget, _ arguments: ParsedArguments) throws -> Int32 {
            let directory = arguments[corpus] ?? "Tests/Fuzz/Corpus/\(target.rawValue)"
            let runs = arguments[runs] ?? 10_000
            var random = Mutator(seed: arguments[seed] ?? 1)
            let corpus = try FileManager.default.contentsOfDirectory(atPath: directory).sorted().map {
                [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + $0)))
            }
            guard !corpus.isEmpty else {
                print("no corpus in \(directory)")
                return 1
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
                return 1
            }
            return 0
        }
    }
#endif
