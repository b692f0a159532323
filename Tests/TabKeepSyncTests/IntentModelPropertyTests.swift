import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

@Suite struct IntentModelPropertyTests {
    /// `TABKEEP_MODEL_SEED=N swift test --filter IntentModelPropertyTests` replays one seed alone.
    /// `TABKEEP_MODEL_SEEDS=N` runs N seeds instead of the default run's, for a longer search.
    static let seeds = propertySeeds(
        one: "TABKEEP_MODEL_SEED", many: "TABKEEP_MODEL_SEEDS", defaultCount: 1_000)
    static let steps = 32

    @Test(arguments: seeds)
    func everyStoreShowsWhatTheUsersDidAfterALossyNetwork(seed: Int) throws {
        let directory = TemporaryDirectory()
        let scriptSeed = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        var scenario = try ModelScenario(seed: scriptSeed, directory: directory)
        try scenario.run(steps: Self.steps)
        try scenario.finalExchange()
        let problems = try scenario.problems()
        var smallest = ""
        if !problems.isEmpty {
            let failing = ScriptRun(scenario.random, failure: Self.report(problems, scenario.log))
            smallest = shrinkScript(failing) { replaying, steps in
                Self.run(seed: scriptSeed, replaying: replaying, steps: steps)
            }.describedAsSmallest(of: Self.steps)
        }
        #expect(
            problems.isEmpty,
            """
            \(replayLine(seed: UInt64(seed), variable: "TABKEEP_MODEL_SEED", filter: "IntentModelPropertyTests"))
            \(Self.report(problems, scenario.log))
            \(smallest)
            """)
    }

    /// One script of `steps` steps drawing `replaying` first, as the shrinker runs it: what failed,
    /// or that it threw.
    static func run(seed: UInt64, replaying: [UInt64], steps: Int) -> ScriptRun {
        let directory = TemporaryDirectory()
        var scenario: ModelScenario
        do {
            scenario = try ModelScenario(seed: seed, replaying: replaying, directory: directory)
        } catch {
            return ScriptRun(ScriptRandom(seed: seed), failure: nil)
        }
        do {
            try scenario.run(steps: steps)
            try scenario.finalExchange()
            let problems = try scenario.problems()
            return ScriptRun(
                scenario.random, failure: problems.isEmpty ? nil : report(problems, scenario.log))
        } catch {
            return ScriptRun(scenario.random, failure: report(["threw \(error)"], scenario.log))
        }
    }

    static func report(_ problems: [String], _ log: [String]) -> String {
        "\(problems.joined(separator: "\n"))\nscript:\n\(log.joined(separator: "\n"))"
    }
}
