import Foundation
import LMDBKit
import TabKeep

/// One contender of an interleaved measurement: a name and one timed operation (given a counter),
/// and for a TabKeep store the locking mode it runs in.
struct Contender {
    var name: String
    var locking: Locking?
    var operation: (Int) throws -> Void

    init(name: String, locking: Locking? = nil, operation: @escaping (Int) throws -> Void) {
        self.name = name
        self.locking = locking
        self.operation = operation
    }
}

/// A TabKeep contender's name in a workload measured in every `--locking` mode:
/// "TabKeep .full (per-transaction)".
func tabKeepName(_ name: String, _ locking: Locking) -> String { "\(name) (\(locking))" }

/// What every workload shares: the options, the work directory, the data and the report.
final class Bench {
    let options: Options
    let directory: String
    let fixture: Fixture
    var report: Report
    /// The locking mode of the workloads measured in one mode only (sync, dump-restore): the one
    /// `--locking` names, or with both the default for new stores.
    let singleLocking: Locking
    /// TabKeep stores already populated, by profile count and locking mode, so later workloads reuse them.
    private var populated: [String: TabKeepStore] = [:]
    /// The `.full` stores of durable-edit, reused by concurrent-edits.
    var editStores: EditStores?
    /// The largest one-edit reply, in bytes, by store size.
    var messageBytes: [Int: Int] = [:]
    /// Dump and restore figures, by "phase scale".
    var phaseFigures: [String: PhaseFigures] = [:]
    /// Keeps results alive so the optimizer cannot drop an operation.
    var sink = 0
    /// The largest store UserDefaults and JSON files are populated to: beyond it, one plist of
    /// a gigabyte and a million files would take longer than the whole run.
    var peerCap: Int { options.smoke ? Int.max : 100_000 }
    /// UserDefaults' cap: on Linux, setting keys one by one grows worse than linearly (100k did
    /// not finish loading in minutes), so it is measured at 10k only.
    var defaultsCap: Int { options.smoke ? Int.max : 10_000 }

    init(options: Options, directory: String) throws {
        self.options = options
        self.directory = directory
        self.fixture = try Fixture()
        self.singleLocking =
            options.lockings.count == 1 ? options.lockings[0] : try Locking.defaultForNewStores()
        self.report = Report(
            machine: Machine.current(),
            command: "tabkeep-bench " + CommandLine.arguments.dropFirst().joined(separator: " "))
    }

    func log(_ message: String) {
        FileHandle.standardError.write(Data(("· " + message + "\n").utf8))
    }

    func path(_ name: String) -> String { directory + "/" + name }

    // MARK: Populating

    /// A TabKeep store of `count` profiles created in `locking` mode, bulk-loaded in big
    /// `.deferred` transactions, then reopened with `durability` (and the mode it records).
    func tabKeepStore(
        _ name: String, count: Int, durability: Durability = .full, locking: Locking
    ) throws -> TabKeepStore {
        let location = path(name)
        let started = nanoseconds()
        do {
            let loader = try TabKeepStore(
                path: location, options: .init(durability: .deferred, locking: locking))
            try loader.registerCatalog(fixture.catalog)
            let chunk = 100_000
            var start = 0
            while start < count {
                let end = min(start + chunk, count)
                try loader.importDocuments(mode: .merge, sizeHint: (end - start) * 1_400) { add in
                    for index in start..<end {
                        try add(
                            DocumentKey(profile: fixture.profile(index), bar: .main), fixture.document(index))
                    }
                }
                start = end
            }
            try loader.environment.sync()
        }
        let store = try TabKeepStore(path: location, options: .init(durability: durability))
        log(
            "populated \(name) (\(store.locking)): \(scaleLabel(count)) profiles in "
                + formatTime(Double(nanoseconds() - started)))
        return store
    }

    /// The shared `.full` TabKeep store of `count` profiles in `locking` mode used by launch-read,
    /// sync and dump.
    func sharedStore(count: Int, locking: Locking) throws -> TabKeepStore {
        let name = "tabkeep-\(scaleLabel(count))-\(locking)"
        if let store = populated[name] { return store }
        let store = try tabKeepStore(name, count: count, locking: locking)
        populated[name] = store
        return store
    }

    // MARK: Measuring

    /// Runs the contenders in interleaved rounds for about `seconds`: each round gives every
    /// contender a short slice, in a rotating order, timing each operation on its own.
    func interleave(_ contenders: [Contender], seconds: Double, minimum: Int = 5) throws -> [Samples] {
        var samples = Array(repeating: Samples(), count: contenders.count)
        var counters = Array(repeating: 0, count: contenders.count)
        let budget = UInt64(seconds * 1e9)
        let slice = max(budget / UInt64(40 * max(contenders.count, 1)), 2_000_000)
        let start = nanoseconds()
        var round = 0
        while true {
            let elapsed = nanoseconds() - start
            let enough = samples.allSatisfy { $0.count >= minimum }
            if (elapsed >= budget && enough) || elapsed >= budget * 4 { break }
            for offset in contenders.indices {
                let index = (offset + round) % contenders.count
                let sliceEnd = nanoseconds() + slice
                repeat {
                    let before = nanoseconds()
                    try contenders[index].operation(counters[index])
                    let after = nanoseconds()
                    samples[index].add(after - before)
                    counters[index] += 1
                } while nanoseconds() < sliceEnd
            }
            round += 1
        }
        return samples
    }

    /// Report rows of one interleaved measurement.
    func rows(
        _ workload: Workload, scale: String, _ contenders: [Contender], _ samples: [Samples],
        notes: [String: String] = [:]
    ) -> [ResultRow] {
        var result: [ResultRow] = []
        for (contender, sample) in zip(contenders, samples) {
            var sample = sample
            let median = sample.quantile(0.5)
            result.append(
                ResultRow(
                    workload: workload.rawValue, scale: scale, contender: contender.name,
                    medianNanoseconds: median, p99Nanoseconds: sample.quantile(0.99),
                    operations: sample.count,
                    rate: 1e9 / median, rateUnit: "ops/s", note: notes[contender.name],
                    locking: contender.locking?.rawValue))
        }
        return result
    }

    /// Random profile indices among `count`: the same for every contender.
    func sample(among count: Int, size: Int = 10_000, seed: UInt64) -> [Int] {
        var generator = SplitMix64(seed: seed)
        return (0..<min(size, max(count, 1) * 4)).map { _ in Int(generator.next() % UInt64(count)) }
    }
}
