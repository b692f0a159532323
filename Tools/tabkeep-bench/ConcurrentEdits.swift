import Foundation
import Synchronization
import TabKeep

extension Bench {
    /// The writers of concurrent-edits.
    static let writers = 8

    /// concurrent-edits: 8 writers making durable edits for a fixed time. TabKeep's writers are
    /// tasks using the `async` edit API (group commit); SQLite and raw LMDB are blocking C APIs,
    /// so their 8 writers are threads (8 blocking tasks would only get the cooperative pool's 2).
    func concurrentEdits() async throws {
        if editStores == nil { try durableEdit() }
        guard let stores = editStores else { return }
        let count = editProfiles
        let rounds = 3
        let slice = options.seconds / Double(rounds)
        var totals: [String: (edits: Int, seconds: Double, samples: Samples)] = [:]
        let names = ["TabKeep group commit", "SQLite WAL FULL", "raw LMDB .full, one commit per edit"]
        for round in 0..<rounds {
            for offset in 0..<names.count {
                let name = names[(offset + round) % names.count]
                let started = nanoseconds()
                let samples: Samples
                switch name {
                case names[0]:
                    samples = try await tabKeepWriters(stores.tabKeep, count: count, seconds: slice)
                case names[1]:
                    let path = stores.sqlitePath
                    samples = try threadWriters(count: count, seconds: slice) {
                        () throws -> (Int, [UInt8], [UInt8]) throws -> Void in
                        let connection = try SQLiteDatabase(path: path, synchronous: "FULL")
                        return { _, key, value in try connection.write(key, value) }
                    }
                default:
                    let raw = stores.raw
                    samples = try threadWriters(count: count, seconds: slice) {
                        () throws -> (Int, [UInt8], [UInt8]) throws -> Void in
                        { _, key, value in try raw.put(key, value) }
                    }
                }
                let elapsed = Double(nanoseconds() - started) / 1e9
                var total = totals[name] ?? (0, 0, Samples())
                total.edits += samples.count
                total.seconds += elapsed
                for value in samples.values { total.samples.add(value) }
                totals[name] = total
            }
        }
        var rows: [ResultRow] = []
        for name in names {
            guard var total = totals[name] else { continue }
            rows.append(
                ResultRow(
                    workload: Workload.concurrentEdits.rawValue,
                    scale: "\(scaleLabel(count)), \(Self.writers) writers",
                    contender: name, medianNanoseconds: total.samples.quantile(0.5),
                    p99Nanoseconds: total.samples.quantile(0.99), operations: total.edits,
                    rate: Double(total.edits) / total.seconds, rateUnit: "edits/s",
                    note: "median/p99: one writer's wait; × raw = time per edit"))
        }
        // Throughput workload: the ratio is raw LMDB's edits/s over this contender's (time per edit).
        if let base = rows.first(where: { $0.contender == names[2] })?.rate {
            for index in rows.indices { rows[index].ratioToRawLMDB = rows[index].rate.map { base / $0 } }
        }
        report.rows += rows
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
