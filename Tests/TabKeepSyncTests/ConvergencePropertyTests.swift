import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

/// The kinds of edit a script draws from: every `TabBarEdit` case, plus erase and profile merge.
enum ScriptStep: CaseIterable {
    case move, reorder, setCustomizable, setCustomizableFlag, setHidden, select
    case setBadge, addToBadge, clearBadge, setBadgeText, reset, erase, mergeProfile
}

/// Replicas that edit at random and exchange encoded messages over a lossy network that
/// duplicates and reorders.
struct ConvergenceScenario {
    /// The script's numbers, recorded so a failing script can be shrunk.
    var random: ScriptRandom
    let stores: [TabKeepStore]
    var inFlight: [(to: Int, bytes: [UInt8])] = []
    /// The kinds of edit the store took (a refused edit, or a move with no tab shown, is not one).
    var stepsApplied: Set<ScriptStep> = []
    let profiles = [profile("alice"), profile("bob")]

    /// A scenario drawing from `seed`, or first the numbers of `replaying` (a shrunk script's).
    init(seed: UInt64, replaying: [UInt64] = [], directory: TemporaryDirectory, name: String = "replica")
        throws
    {
        random = ScriptRandom(seed: seed, replaying: replaying)
        let count = Int.random(in: 3...5, using: &random)
        stores = try (0..<count).map { try directory.store("\(name)-\($0)") }
        for store in stores { try store.registerCatalog(letterTabs) }
    }

    /// Runs until `scripts` scripts have run, or after `steps` steps (a shrunk script's count).
    mutating func run(scripts: Int, steps: Int = .max) throws {
        var done = 0
        var stepsRun = 0
        while done < scripts && stepsRun < steps {
            random.beginStep()
            stepsRun += 1
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                try runScript(on: stores[Int.random(in: 0..<stores.count, using: &random)])
                done += 1
            case 4..<6:
                try startSession()
            default:
                try deliverOne()
            }
        }
    }

    /// One to three edits of random kinds on one replica; refused edits change nothing.
    mutating func runScript(on store: TabKeepStore) throws {
        let who = profiles[Int.random(in: 0..<profiles.count, using: &random)]
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let step = ScriptStep.allCases.randomElement(using: &random)!
            do {
                if try perform(step, who: who, on: store) { stepsApplied.insert(step) }
            } catch {
                // e.g. moving a hidden tab: refused whole, nothing changed
                guard isRefusedEdit(error) else { throw error }
            }
        }
    }

    /// Makes one edit of kind `step`; false when there was nothing to edit.
    mutating func perform(_ step: ScriptStep, who: ProfileID, on store: TabKeepStore) throws(TabKeepError)
        -> Bool
    {
        let shown = try store.layout(who, catalog: letterTabs).order
        let any = letterTabs.tabs.map(\.id).randomElement(using: &random)!
        switch step {
        case .move:
            guard let moved = shown.randomElement(using: &random) else { return false }
            try store.edit(who, .move(moved, to: Int.random(in: 0..<shown.count, using: &random)))
        case .reorder: try store.edit(who, .reorder(shown.shuffled(using: &random)))
        case .setCustomizable:
            try store.edit(who, .setCustomizable(shown.filter { _ in Bool.random(using: &random) }))
        case .setCustomizableFlag: try store.edit(who, .setCustomizableFlag(any, Bool.random(using: &random)))
        case .setHidden: try store.edit(who, .setHidden(any, Bool.random(using: &random)))
        case .select:
            let choices: [Selection] = [.tab(any), .more, .none]
            try store.edit(who, .select(choices.randomElement(using: &random)!))
        case .setBadge: try store.edit(who, .setBadge(any, Int.random(in: 0...9, using: &random)))
        case .addToBadge: try store.edit(who, .addToBadge(any, Int.random(in: -4...6, using: &random)))
        case .clearBadge: try store.edit(who, .clearBadge(any))
        case .setBadgeText: try store.edit(who, .setBadgeText(any, Bool.random(using: &random) ? "new" : nil))
        case .reset: try store.reset(who)
        case .erase: try store.erase(who)
        case .mergeProfile: try store.mergeProfile(who, into: profiles.first { $0 != who }!)
        }
        return true
    }

    mutating func startSession() throws {
        let from = Int.random(in: 0..<stores.count, using: &random)
        var to = Int.random(in: 0..<stores.count - 1, using: &random)
        if to >= from { to += 1 }
        inFlight.append((to, try SyncSession(store: stores[from]).request().encoded()))
    }

    /// Delivers a random message (reordering); may lose it, or keep a copy to deliver again.
    mutating func deliverOne() throws {
        guard !inFlight.isEmpty else { return }
        let index = Int.random(in: 0..<inFlight.count, using: &random)
        let (to, bytes) = inFlight[index]
        let roll = Int.random(in: 0..<10, using: &random)
        if roll >= 2 { inFlight.remove(at: index) }  // else: duplicated, stays in flight
        if roll == 9 { return }  // lost
        let session = SyncSession(store: stores[to])
        let message = try SyncMessage(decoding: bytes)
        let sender = stores.firstIndex { $0.replicaID == message.sender }!
        switch message.kind {
        case .request:
            inFlight.append((sender, try session.respond(to: message).encoded()))
        case .reply:
            if let final = try session.receive(message).reply { inFlight.append((sender, final.encoded())) }
        case .final:
            try session.receive(message)
        }
    }

    /// Every pair in both directions: each store first gathers everything, then hands it out.
    func finalExchange() throws {
        for _ in 0..<2 {
            for first in stores.indices {
                for second in stores.indices where second > first { try sync(stores[first], stores[second]) }
            }
        }
    }
}

func isRefusedEdit(_ error: TabKeepError) -> Bool {
    if case .invalidEdit = error { return true }
    return false
}

@Suite struct ConvergencePropertyTests {
    /// `TABKEEP_CONVERGENCE_SEED=N swift test --filter ConvergencePropertyTests` replays one seed
    /// alone; `TABKEEP_CONVERGENCE_SEEDS=N` runs N seeds instead of the default run's 500.
    static let seeds = propertySeeds(
        one: "TABKEEP_CONVERGENCE_SEED", many: "TABKEEP_CONVERGENCE_SEEDS", defaultCount: 500)
    /// The default run's seeds, whose scripts the coverage test checks.
    static let defaultSeeds = 0..<500
    static let scriptsPerScenario = 6

    static func scenario(
        seed: Int, replaying: [UInt64] = [], directory: TemporaryDirectory, name: String = "replica"
    ) throws -> ConvergenceScenario {
        try ConvergenceScenario(
            seed: UInt64(seed) &* 0x2545_F491_4F6C_DD1D, replaying: replaying, directory: directory,
            name: name)
    }

    @Test(arguments: seeds)
    func replicasConvergeAfterRandomEditsAndALossyDuplicatingReorderingNetwork(seed: Int) throws {
        let directory = TemporaryDirectory()
        var scenario = try Self.scenario(seed: seed, directory: directory)
        try scenario.run(scripts: Self.scriptsPerScenario)
        try scenario.finalExchange()
        let replay = replayLine(
            seed: UInt64(seed), variable: "TABKEEP_CONVERGENCE_SEED", filter: "ConvergencePropertyTests")
        var message = Comment(rawValue: replay)
        if let failure = try Self.divergence(scenario) {
            let failing = ScriptRun(scenario.random, failure: failure)
            let smallest = shrinkScript(failing) { replaying, steps in
                Self.run(seed: seed, replaying: replaying, steps: steps)
            }
            message = Comment(rawValue: replay + "\n" + smallest.describedAsSmallest(of: failing.steps))
        }
        let reference = try documentBytes(scenario.stores[0])
        let vector = try scenario.stores[0].versionVector()
        for store in scenario.stores.dropFirst() {
            #expect(try documentBytes(store) == reference, message)
            #expect(try store.versionVector() == vector, message)
        }
        let profiles = Set(reference.keys.map(\.profile)).union(scenario.profiles)
        for who in profiles {
            let layout = try scenario.stores[0].layout(who, catalog: letterTabs)
            for store in scenario.stores.dropFirst() {
                #expect(try store.layout(who, catalog: letterTabs) == layout, message)
            }
        }
    }

    /// How the stores of a scenario after its final exchange differ (documents, vectors, layouts),
    /// or nil when they agree.
    static func divergence(_ scenario: ConvergenceScenario) throws -> String? {
        let reference = try documentBytes(scenario.stores[0])
        let vector = try scenario.stores[0].versionVector()
        var problems: [String] = []
        for (index, store) in scenario.stores.enumerated().dropFirst() {
            if try documentBytes(store) != reference { problems.append("store \(index): other documents") }
            if try store.versionVector() != vector { problems.append("store \(index): another vector") }
        }
        for who in Set(reference.keys.map(\.profile)).union(scenario.profiles) {
            let layout = try scenario.stores[0].layout(who, catalog: letterTabs)
            for (index, store) in scenario.stores.enumerated().dropFirst()
            where try store.layout(who, catalog: letterTabs) != layout {
                problems.append("store \(index): another layout of \(who)")
            }
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    /// One scenario of `steps` steps drawing `replaying` first, as the shrinker runs it.
    static func run(seed: Int, replaying: [UInt64], steps: Int) -> ScriptRun {
        let directory = TemporaryDirectory()
        guard var scenario = try? Self.scenario(seed: seed, replaying: replaying, directory: directory) else {
            return ScriptRun(ScriptRandom(seed: 0), failure: nil)
        }
        do {
            try scenario.run(scripts: Self.scriptsPerScenario, steps: steps)
            try scenario.finalExchange()
            return ScriptRun(scenario.random, failure: try divergence(scenario))
        } catch {
            return ScriptRun(scenario.random, failure: "threw \(error)")
        }
    }

    /// The convergence test's own scripts (its default seeds, its scenario) apply every kind of
    /// edit: a kind that is always refused, or never drawn, would leave it untested there.
    @Test func theScriptsUseEveryKindOfEdit() throws {
        let directory = TemporaryDirectory()
        var applied: Set<ScriptStep> = []
        var scenarios = 0
        for seed in Self.defaultSeeds {
            var scenario = try Self.scenario(seed: seed, directory: directory, name: "seed-\(seed)")
            try scenario.run(scripts: Self.scriptsPerScenario)
            applied.formUnion(scenario.stepsApplied)
            scenarios += 1
            if applied.count == ScriptStep.allCases.count { break }
        }
        #expect(
            applied == Set(ScriptStep.allCases),
            "never applied in \(scenarios) scenarios: \(Set(ScriptStep.allCases).subtracting(applied))")
    }
}
