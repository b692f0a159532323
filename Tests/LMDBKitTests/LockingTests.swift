import Foundation
import Synchronization
import TabKeepTestSupport
import Testing

@testable import LMDBKit

/// Reads that saw a torn or changing snapshot, counted across tasks.
final class TornCount: Sendable {
    let value = Atomic<Int>(0)
}

@Suite("Locking modes: recorded in the store, followed by every open")
struct LockingTests {
    let directory = TemporaryDirectory()

    func configuration(_ locking: Locking?) -> Configuration {
        Configuration(databases: ["items"], locking: locking)
    }

    @Test(arguments: Locking.allCases)
    func aNewStoreTakesTheModeItIsAskedForAndKeepsIt(locking: Locking) throws {
        let path = directory.sub("env")
        do {
            let env = try Environment.open(path: path, configuration: configuration(locking))
            #expect(env.locking == locking)
            try env.write { txn in try txn.put(try env.database("items"), key: "k".bytes, value: [1]) }
            try env.close()
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        switch locking {
        case .lmdb: #expect(files == ["data.mdb", "lock.mdb"])
        // No lock.mdb: nothing of LMDB's own locking is ever set up.
        case .perTransaction: #expect(files == ["data.mdb", Environment.transactionLockFileName])
        }
        let followed = try Environment.open(path: path, configuration: configuration(nil))
        #expect(followed.locking == locking)
        #expect(
            try followed.read { txn in try txn.get(try followed.database("items"), key: "k".bytes) } == [1])
        try followed.close()
        let other: Locking = locking == .lmdb ? .perTransaction : .lmdb
        #expect(throws: LMDBError.lockingMismatch(path: followed.path, store: locking, requested: other)) {
            try Environment.open(path: path, configuration: configuration(other))
        }
        // Also while the path is open in this process.
        let open = try Environment.open(path: path, configuration: configuration(nil))
        #expect(throws: LMDBError.lockingMismatch(path: open.path, store: locking, requested: other)) {
            try Environment.open(path: path, configuration: configuration(other))
        }
    }

    /// Readers and the writer of one process keep the rule between themselves: a reader's
    /// snapshot never changes while it lives, and every reader sees whole commits.
    @Test func perTransactionReadersAndWriterOfOneProcessNeverOverlap() async throws {
        let env = try Environment.open(
            path: directory.sub("env"), configuration: configuration(.perTransaction))
        let items = try env.database("items")
        try env.write { txn in
            try txn.put(items, key: "a".bytes, value: [0])
            try txn.put(items, key: "b".bytes, value: [0])
        }
        let torn = TornCount()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for value in 1...200 {
                    try? env.write { txn in
                        try txn.put(items, key: "a".bytes, value: [UInt8(value % 256)])
                        try txn.put(items, key: "b".bytes, value: [UInt8(value % 256)])
                    }
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<200 {
                        let same = try? env.read { txn in
                            let a = try txn.get(items, key: "a".bytes)
                            usleep(50)
                            let again = try txn.get(items, key: "a".bytes)
                            let b = try txn.get(items, key: "b".bytes)
                            return a == again && a == b
                        }
                        if same != true { torn.value.add(1, ordering: .relaxed) }
                    }
                }
            }
        }
        #expect(torn.value.load(ordering: .relaxed) == 0)
        #expect(try env.read { txn in try txn.get(items, key: "a".bytes) } == [200])
    }

    /// A read inside a read, or inside a write, of the same thread takes no second lock, so it
    /// cannot wait for itself.
    @Test func nestedTransactionsOfOneThreadDoNotWaitForThemselves() throws {
        let env = try Environment.open(
            path: directory.sub("env"), configuration: configuration(.perTransaction))
        let items = try env.database("items")
        try env.write { txn in
            try txn.put(items, key: "k".bytes, value: [1])
            // It reads the last commit, not the write around it.
            #expect(try env.read { inner in try inner.get(items, key: "k".bytes) } == nil)
        }
        let value = try env.read { _ in try env.read { inner in try inner.get(items, key: "k".bytes) } }
        #expect(value == [1])
        #expect(try env.statistics(of: items).entries == 1)
    }

    /// Suspending a per-transaction environment lets go of nothing because it holds nothing: it
    /// stays open, is not suspended, and every call goes on at once.
    @Test func suspendingInPerTransactionModeOnlyWaitsForTransactionsInFlight() throws {
        let env = try Environment.open(
            path: directory.sub("env"), configuration: configuration(.perTransaction))
        let items = try env.database("items")
        try env.suspend()
        #expect(!env.isSuspended)
        try env.write { txn in try txn.put(items, key: "k".bytes, value: [2]) }
        #expect(env.openings == 1, "the environment was closed and reopened")
    }

    /// A backup of a per-transaction store is a per-transaction store.
    @Test func aBackupKeepsTheStoresMode() throws {
        let env = try Environment.open(
            path: directory.sub("env"), configuration: configuration(.perTransaction))
        try env.write { txn in try txn.put(try env.database("items"), key: "k".bytes, value: [3]) }
        try env.backup(to: directory.sub("copy"))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.sub("copy")).sorted()
        #expect(files == ["data.mdb", Environment.transactionLockFileName])
        let copy = try Environment.open(path: directory.sub("copy"), configuration: configuration(nil))
        #expect(copy.locking == .perTransaction)
        #expect(try copy.read { txn in try txn.get(try copy.database("items"), key: "k".bytes) } == [3])
    }
}
