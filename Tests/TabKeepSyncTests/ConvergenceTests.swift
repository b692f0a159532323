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
    var random: SplitMix64
    let stores: [TabKeepStore]
    var inFlight: [(to: Int, bytes: [UInt8])] = []
    /// The kinds of edit the store took (a refused edit, or a move with no tab shown, is not one).
    var stepsApplied: Set<ScriptStep> = []
    let profiles = [profile("alice"), profile("bob")]

    init(seed: UInt64, directory: TemporaryDirectory, name: String = "replica") throws {
        random = SplitMix64(seed: seed)
        let count = Int.random(in: 3...5, using: &random)
        stores = try (0..<count).map { try directory.store("\(name)-\($0)") }
        for store in stores { try store.registerCatalog(sevenLetterTabs) }
    }

    mutating func run(scripts: Int) throws {
        var done = 0
        while done < scripts {
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
        let shown = try store.layout(who, catalog: sevenLetterTabs).order
        let any = sevenLetterTabs.tabs.map(\.id).randomElement(using: &random)!
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

@Suite struct ConvergenceTests {
    /// The convergence test's seeds, and the scenario each makes (shared with the coverage test).
    static let seeds = 0..<500
    static let scriptsPerScenario = 6

    static func scenario(seed: Int, directory: TemporaryDirectory, name: String = "replica") throws
        -> ConvergenceScenario
    {
        try ConvergenceScenario(seed: UInt64(seed) &* 0x2545_F491_4F6C_DD1D, directory: directory, name: name)
    }

    @Test(arguments: seeds)
    func replicasConvergeAfterRandomEditsAndALossyDuplicatingReorderingNetwork(seed: Int) throws {
        let directory = TemporaryDirectory()
        var scenario = try Self.scenario(seed: seed, directory: directory)
        try scenario.run(scripts: Self.scriptsPerScenario)
        try scenario.finalExchange()
        let reference = try documentBytes(scenario.stores[0])
        let vector = try scenario.stores[0].versionVector()
        for store in scenario.stores.dropFirst() {
            #expect(try documentBytes(store) == reference, "seed \(seed)")
            #expect(try store.versionVector() == vector, "seed \(seed)")
        }
        let profiles = Set(reference.keys.map(\.profile)).union(scenario.profiles)
        for who in profiles {
            let layout = try scenario.stores[0].layout(who, catalog: sevenLetterTabs)
            for store in scenario.stores.dropFirst() {
                #expect(try store.layout(who, catalog: sevenLetterTabs) == layout, "seed \(seed)")
            }
        }
    }

    /// The convergence test's own scripts (its seeds, its scenario) apply every kind of edit: a
    /// kind that is always refused, or never drawn, would leave it untested there.
    @Test func theScriptsUseEveryKindOfEdit() throws {
        let directory = TemporaryDirectory()
        var applied: Set<ScriptStep> = []
        var scenarios = 0
        for seed in Self.seeds {
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
