import Foundation
import TabKeep
import TabKeepDump
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

/// The life of real devices around the edits: scoped and whole syncs, a profile's dump merged into
/// another store, a store replaced from another's dump, a device restored from an old backup.
/// The reference model follows what each store holds through all of it, so after a final full
/// exchange every store must show what the users did — and `verify` must pass after every step.
extension ModelScenario {
    mutating func runLifecycle(
        steps: Int, directory: TemporaryDirectory, backups: inout [Int: (String, Set<Int>, ReplicaID)]
    )
        throws
    {
        for step in 0..<steps {
            random.beginStep()
            let device = Int.random(in: 0..<stores.count, using: &random)
            var other = Int.random(in: 0..<stores.count - 1, using: &random)
            if other >= device { other += 1 }
            // The stores a step can change: only they need verifying again.
            var touched = [device, other]
            switch Int.random(in: 0..<21, using: &random) {
            case 0..<8:
                try edit(on: device)
                touched = [device]
            case 8, 9:
                try sync(stores[device], stores[other])
                log.append("sync \(device) ↔ \(other)")
                let union = model.knowledge[device].union(model.knowledge[other])
                model.knowledge[device] = union
                model.knowledge[other] = union
            case 10, 11:
                let who = profiles.randomElement(using: &random)!
                try sync(stores[device], stores[other], profiles: [who])
                log.append("sync \(device) ↔ \(other), only \(who)")
                let carried = model.knowledge[device].union(model.knowledge[other]).filter {
                    model.edits[$0].profile == who
                }
                model.knowledge[device].formUnion(carried)
                model.knowledge[other].formUnion(carried)
            case 12, 13:
                // One profile's dump merged into another store.
                let who = profiles.randomElement(using: &random)!
                let path = directory.sub("dump-\(step)")
                try dump(stores[device], profiles: [who], to: path)
                _ = try stores[other].restore(fromDumpAt: path, mode: .merge)
                log.append("dump \(who) of \(device), merged into \(other)")
                model.knowledge[other].formUnion(
                    model.knowledge[device].filter { model.edits[$0].profile == who })
            case 14:
                // A store replaced by another's whole dump: it holds exactly that, under a new id.
                let path = directory.sub("dump-\(step)")
                try dump(stores[device], profiles: nil, to: path)
                let before = stores[other].replicaID
                _ = try stores[other].restore(fromDumpAt: path, mode: .replace)
                #expect(stores[other].replicaID != before, "a replace takes a fresh replica id")
                log.append("dump of \(device) replaces \(other)")
                model.knowledge[other] = model.knowledge[device]
            case 15, 16:
                // A hot backup, kept for later.
                let path = directory.sub("backup-\(step)")
                try stores[device].backup(to: path)
                backups[device] = (path, model.knowledge[device], stores[device].replicaID)
                log.append("backup of \(device)")
            case 17:
                // The device is restored from its backup: a copy of the files, opened anew.
                guard let (path, knowledge, copied) = backups[device] else { continue }
                let restored = directory.sub("restored-\(step)")
                try FileManager.default.createDirectory(atPath: restored, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: path + "/data.mdb", toPath: restored + "/data.mdb")
                stores[device] = try TabKeepStore(path: restored, options: .init(durability: .deferred))
                #expect(stores[device].replicaID != copied, "a backup copy takes a fresh replica id")
                #expect(try stores[device].identityHistory().last == copied)
                model.knowledge[device] = knowledge
                backups[device] = nil
                log.append("device \(device) restored from its backup")
            case 20:
                try overClaim(on: device)
                touched = [device]
            default:
                try startSession()
                try deliverOne()
                touched = Array(stores.indices)
            }
            for index in touched {
                let store = stores[index]
                let report = try store.verify()
                #expect(
                    report.problems.isEmpty, "store \(index) after \(log.last ?? "start"): \(report.problems)"
                )
                if !report.problems.isEmpty { return }
            }
        }
    }

    func dump(_ store: TabKeepStore, profiles: Set<ProfileID>?, to path: String) throws {
        var bytes: [UInt8] = []
        _ = try store.dump(profiles: profiles) { bytes += $0 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

@Suite struct LifecyclePropertyTests {
    /// `TABKEEP_LIFECYCLE_SEED=N swift test --filter LifecyclePropertyTests` replays one seed alone.
    /// `TABKEEP_LIFECYCLE_SEEDS=N` runs N seeds instead of the default run's, for a longer search.
    /// Seeds 848, 1196, 1985, 2658 and 4393 lost an edit to an inflated vector (found by longer
    /// searches); 4259 found the model crediting a replaced store with a final's sender's edits.
    static let seeds = propertySeeds(
        one: "TABKEEP_LIFECYCLE_SEED", many: "TABKEEP_LIFECYCLE_SEEDS", defaultCount: 300,
        regressions: [848, 1196, 1985, 2658, 4259, 4393])
    static let steps = 30

    @Test(arguments: seeds)
    func storesThroughSyncsDumpsRestoresAndBackupsShowWhatTheUsersDid(seed: Int) throws {
        let directory = TemporaryDirectory()
        let scriptSeed = UInt64(seed) &* 0xD1B5_4A32_D192_ED03 &+ 7
        var scenario = try ModelScenario(
            seed: scriptSeed, directory: directory, sameCatalog: true, count: 3...4)
        var backups: [Int: (String, Set<Int>, ReplicaID)] = [:]
        try scenario.runLifecycle(steps: Self.steps, directory: directory, backups: &backups)
        try scenario.finalExchange()
        let replay = replayLine(
            seed: UInt64(seed), variable: "TABKEEP_LIFECYCLE_SEED", filter: "LifecyclePropertyTests")
        let reference = try documentBytes(scenario.stores[0])
        for store in scenario.stores.dropFirst() {
            #expect(try documentBytes(store) == reference, "\(replay)")
        }
        let problems = try scenario.problems()
        var smallest = ""
        if !problems.isEmpty {
            let failing = ScriptRun(
                scenario.random, failure: IntentModelPropertyTests.report(problems, scenario.log))
            // The shrinker's scripts check the stores after every step as this one does; what those
            // checks find in a cut script is not this test's failure, only a sign the cut still fails.
            withKnownIssue("checks inside the shrinker's cut scripts", isIntermittent: true) {
                smallest = shrinkScript(failing) { replaying, steps in
                    Self.run(seed: scriptSeed, replaying: replaying, steps: steps)
                }.describedAsSmallest(of: Self.steps)
            }
        }
        #expect(
            problems.isEmpty,
            """
            \(replay)
            \(IntentModelPropertyTests.report(problems, scenario.log))
            \(smallest)
            """)
    }

    /// One lifecycle script of `steps` steps drawing `replaying` first, as the shrinker runs it:
    /// what failed (stores that differ, or differ from the model), or that it threw.
    static func run(seed: UInt64, replaying: [UInt64], steps: Int) -> ScriptRun {
        let directory = TemporaryDirectory()
        guard
            var scenario = try? ModelScenario(
                seed: seed, replaying: replaying, directory: directory, sameCatalog: true, count: 3...4)
        else { return ScriptRun(ScriptRandom(seed: seed), failure: nil) }
        do {
            var backups: [Int: (String, Set<Int>, ReplicaID)] = [:]
            try scenario.runLifecycle(steps: steps, directory: directory, backups: &backups)
            try scenario.finalExchange()
            let reference = try documentBytes(scenario.stores[0])
            var problems = try scenario.problems()
            for (index, store) in scenario.stores.enumerated().dropFirst()
            where try documentBytes(store) != reference {
                problems.append("store \(index) holds other documents than store 0")
            }
            let failure = problems.isEmpty ? nil : IntentModelPropertyTests.report(problems, scenario.log)
            return ScriptRun(scenario.random, failure: failure)
        } catch {
            return ScriptRun(
                scenario.random, failure: IntentModelPropertyTests.report(["threw \(error)"], scenario.log))
        }
    }
}
