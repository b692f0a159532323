import Foundation
import LMDBKit
import Synchronization

/// The two sides of the test that shows why per-transaction locking exists: a reader that keeps
/// one snapshot while another process commits, on a bare LMDBKit environment of 2,000 keys.
enum Snapshot {
    static let keys = 2_000
    static let database = "items"

    /// The environment of a snapshot test, in per-transaction mode; with `--coordination off`
    /// opened `MDB_NOLOCK` alone, without the transaction lock.
    static func environment(_ path: String, _ options: Options) throws -> Environment {
        var configuration = Configuration(databases: [database], locking: .perTransaction)
        configuration.perTransactionCoordination = options.value("coordination") != "off"
        return try Environment.open(path: path, configuration: configuration)
    }

    static func key(_ index: Int) -> [UInt8] { Array(String(format: "key-%05d", index).utf8) }

    /// `overwrite STORE --commits N`: N commits, each rewriting every key with a value naming the
    /// commit, so every page of the tree is replaced and freed each time. Prints `committed K`.
    static func overwrite(store: String, options: Options) throws -> Int32 {
        let env = try environment(store, options)
        let items = try env.database(database)
        let commits = Int(options.value("commits") ?? "1") ?? 1
        for commit in 0..<commits {
            let generation = UInt32(getpid()) &* 1_000 &+ UInt32(commit)
            try env.write { txn in
                for index in 0..<keys {
                    try txn.put(items, key: key(index), value: value(generation: generation, index: index))
                }
            }
            Line.out("committed \(commit + 1)")
        }
        return 0
    }

    /// `snapshot-reader STORE --hold-ms N`: in one read transaction, reads every value, prints
    /// `holding`, then for N milliseconds reads them all again and compares each with what the
    /// snapshot held. Prints `mismatches K` (values that changed under the snapshot) at the end.
    static func read(store: String, options: Options) throws -> Int32 {
        let env = try environment(store, options)
        let items = try env.database(database)
        let hold = Double(options.value("hold-ms") ?? "1500") ?? 1_500
        let mismatches = try env.read { txn in
            let first = try (0..<keys).map { try txn.get(items, key: key($0)) }
            Line.out("holding")
            var changed = 0
            let deadline = Date().addingTimeInterval(hold / 1_000)
            while Date() < deadline {
                for index in 0..<keys where try txn.get(items, key: key(index)) != first[index] {
                    changed += 1
                }
                usleep(20_000)
            }
            return changed
        }
        Line.out("mismatches \(mismatches)")
        return 0
    }

    /// `read-stream STORE --threads N --hold-ms H --for-ms T`: N threads run read transactions of
    /// H ms each back to back, started H/N ms apart, so that this process holds a read at every
    /// instant for T ms; a writer of another process gets in only if the turnstile stops new
    /// readers while it waits. Prints `streaming` once every thread is reading, and at the end
    /// `streamed K` (the reads made).
    static func stream(store: String, options: Options) throws -> Int32 {
        let env = try environment(store, options)
        let items = try env.database(database)
        let threads = max(1, Int(options.value("threads") ?? "2") ?? 2)
        let hold = UInt32(Int(options.value("hold-ms") ?? "20") ?? 20) * 1_000
        let deadline = Date().addingTimeInterval(
            Double(Int(options.value("for-ms") ?? "20000") ?? 20_000) / 1_000)
        let reads = Atomic<Int>(0)
        let started = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for index in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                usleep(hold / UInt32(threads) * UInt32(index))
                started.add(1, ordering: .relaxed)
                do {
                    while Date() < deadline {
                        try env.read { txn in
                            _ = try txn.get(items, key: key(0))
                            usleep(hold)
                        }
                        reads.add(1, ordering: .relaxed)
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        while started.load(ordering: .relaxed) < threads { usleep(1_000) }
        Line.out("streaming")
        group.wait()
        if let failure = failures.withLock({ $0.first }) {
            Line.error("read-stream: \(failure)")
            return 1
        }
        Line.out("streamed \(reads.load(ordering: .relaxed))")
        return 0
    }

    /// 64 bytes naming the commit and the key, so a value read from a recycled page differs.
    private static func value(generation: UInt32, index: Int) -> [UInt8] {
        let text = "generation \(generation) key \(index) "
        return Array((text + String(repeating: "x", count: max(0, 64 - text.utf8.count))).utf8)
    }
}
