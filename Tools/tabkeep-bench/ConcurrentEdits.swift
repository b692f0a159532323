import Foundation
import LMDBKit
import Synchronization
import TabKeep

extension Bench {
    /// The writers of concurrent-edits in one process.
    static let writers = 8

    /// concurrent-edits: durable edits for a fixed time by 8 writers in this process, then by
    /// 4 processes (`processEdits()`). TabKeep's 8 writers are tasks using the `async` edit API
    /// (group commit), on a store of each locking mode; SQLite and raw LMDB are blocking C APIs,
    /// so their 8 writers are threads (8 blocking tasks would only get the cooperative pool's 2).
    func concurrentEdits() async throws {
        if editStores == nil { try durableEdit() }
        guard let stores = editStores else { return }
        let count = editProfiles
        var phases: [EditPhase] = stores.tabKeep.map { store in
            EditPhase(name: tabKeepName("TabKeep group commit", store.locking), locking: store.locking) {
                [unowned self] seconds in
                try await EditRun.timed { try await tabKeepWriters(store, count: count, seconds: seconds) }
            }
        }
        let sqlitePath = stores.sqlitePath
        let raw = stores.raw
        phases += [
            EditPhase(name: "SQLite WAL FULL") { [unowned self] seconds in
                try await EditRun.timed {
                    try threadWriters(count: count, seconds: seconds) {
                        () throws -> (Int, [UInt8], [UInt8]) throws -> Void in
                        let connection = try SQLiteDatabase(path: sqlitePath, synchronous: "FULL")
                        return { _, key, value in try connection.write(key, value) }
                    }
                }
            },
            EditPhase(name: Self.rawEditPhase) { [unowned self] seconds in
                try await EditRun.timed {
                    try threadWriters(count: count, seconds: seconds) {
                        () throws -> (Int, [UInt8], [UInt8]) throws -> Void in
                        { _, key, value in try raw.put(key, value) }
                    }
                }
            },
        ]
        report.rows += try await measure(
            phases, scale: "\(scaleLabel(count)), \(Self.writers) writers",
            note: "median/p99: one writer's wait; × raw = time per edit")
        try await processEdits()
    }

    /// The raw LMDB phase of concurrent-edits: the baseline of its ratios.
    static let rawEditPhase = "raw LMDB .full, one commit per edit"

    /// Runs `phases` in 3 rounds of a third of `--seconds` each, in a rotating order, and makes
    /// one row per phase: edits per second over the phase's time, and one edit's wait.
    func measure(_ phases: [EditPhase], scale: String, note: String) async throws -> [ResultRow] {
        let rounds = 3
        let slice = options.seconds / Double(rounds)
        var totals = Array(repeating: (edits: 0, seconds: 0.0, samples: Samples()), count: phases.count)
        for round in 0..<rounds {
            for offset in phases.indices {
                let index = (offset + round) % phases.count
                let run = try await phases[index].run(slice)
                totals[index].edits += run.samples.count
                totals[index].seconds += run.seconds
                for value in run.samples.values { totals[index].samples.add(value) }
            }
        }
        var rows: [ResultRow] = []
        for (phase, total) in zip(phases, totals) {
            var samples = total.samples
            rows.append(
                ResultRow(
                    workload: Workload.concurrentEdits.rawValue, scale: scale,
                    contender: phase.name, medianNanoseconds: samples.quantile(0.5),
                    p99Nanoseconds: samples.quantile(0.99), operations: total.edits,
                    rate: Double(total.edits) / total.seconds, rateUnit: "edits/s",
                    note: note, locking: phase.locking?.rawValue))
        }
        // Throughput workload: the ratio is raw LMDB's edits/s over this contender's (time per edit).
        if let base = rows.first(where: { $0.contender == Self.rawEditPhase })?.rate {
            for index in rows.indices { rows[index].ratioToRawLMDB = rows[index].rate.map { base / $0 } }
        }
        return rows
    }

    /// Eight tasks editing through the group-commit writer until the deadline.
    private func tabKeepWriters(_ store: TabKeepStore, count: Int, seconds: Double) async throws -> Samples {
        let deadline = nanoseconds() + UInt64(seconds * 1e9)
        let fixture = self.fixture
        let badge = fixture.tabs[2]
        return try await withThrowingTaskGroup(of: Samples.self) { group in
            for writer in 0..<Self.writers {
                group.addTask {
                    var generator = SplitMix64(seed: UInt64(writer) &+ 77)
                    var samples = Samples()
                    while nanoseconds() < deadline {
                        let profile = fixture.profile(Int(generator.next() % UInt64(count)))
                        let before = nanoseconds()
                        try await store.edit(profile, .addToBadge(badge, 1))
                        samples.add(nanoseconds() - before)
                    }
                    return samples
                }
            }
            var all = Samples()
            for try await samples in group { for value in samples.values { all.add(value) } }
            return all
        }
    }

    /// Eight threads, each with the writer `makeWriter` gives it, writing until the deadline.
    private func threadWriters(
        count: Int, seconds: Double,
        makeWriter: @escaping @Sendable () throws -> (Int, [UInt8], [UInt8]) throws -> Void
    ) throws -> Samples {
        let deadline = nanoseconds() + UInt64(seconds * 1e9)
        let fixture = self.fixture
        let collected = Mutex<(samples: Samples, error: String?)>((Samples(), nil))
        let done = DispatchGroup()
        for writer in 0..<Self.writers {
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                var generator = SplitMix64(seed: UInt64(writer) &+ 99)
                var samples = Samples()
                do {
                    let write = try makeWriter()
                    while nanoseconds() < deadline {
                        let index = Int(generator.next() % UInt64(count))
                        let key = fixture.key(index)
                        let value = fixture.bytes(index)
                        let before = nanoseconds()
                        try write(index, key, value)
                        samples.add(nanoseconds() - before)
                    }
                } catch {
                    collected.withLock { $0.error = String(describing: error) }
                }
                collected.withLock { state in for value in samples.values { state.samples.add(value) } }
            }
            thread.start()
        }
        done.wait()
        let result = collected.withLock { $0 }
        if let error = result.error { throw BenchError("concurrent writer: \(error)") }
        return result.samples
    }
}

/// One contender of concurrent-edits: a name and a run of all its writers for the given seconds.
struct EditPhase {
    var name: String
    var locking: Locking?
    var run: (Double) async throws -> EditRun

    init(name: String, locking: Locking? = nil, run: @escaping (Double) async throws -> EditRun) {
        self.name = name
        self.locking = locking
        self.run = run
    }
}

/// What one run of a phase's writers measured: every edit's time and how long they edited.
struct EditRun {
    var samples: Samples
    var seconds: Double

    /// The samples `writers` returns, timed by the wall clock around it.
    static func timed(_ writers: () async throws -> Samples) async throws -> EditRun {
        let started = nanoseconds()
        let samples = try await writers()
        return EditRun(samples: samples, seconds: Double(nanoseconds() - started) / 1e9)
    }
}
