import Foundation
import Synchronization
import TabKeepTestSupport
import Testing

@testable import LMDBKit

@Suite("Suspending and closing an environment")
struct EnvironmentSuspendTests {
    let directory = TemporaryDirectory()
    // Closing on suspend is lmdb mode's; per-transaction suspension is in LockingTests.
    let configuration = Configuration(databases: ["items"], locking: .lmdb)

    @Test func aClosedEnvironmentThrowsClosedAndItsPathOpensAgainAsANewEnvironment() throws {
        let path = directory.sub("env")
        let env = try Environment.open(path: path, configuration: configuration)
        let items = try env.database("items")
        try env.write { txn in try txn.put(items, key: "k".bytes, value: [7]) }
        try env.close()
        try env.close()
        #expect(!Environment.isOpen(path: path))
        let closed = LMDBError.closed(path: env.path)
        #expect(throws: closed) { try env.read { txn in try txn.get(items, key: "k".bytes) } }
        #expect(throws: closed) { try env.write { txn in try txn.put(items, key: "k".bytes, value: [8]) } }
        #expect(throws: closed) { try env.info() }
        #expect(throws: closed) { try env.sync() }
        #expect(throws: closed) { try env.resume() }
        #expect(!env.isSuspended)

        let again = try Environment.open(path: path, configuration: configuration)
        #expect(again !== env)
        #expect(try again.read { txn in try txn.get(items, key: "k".bytes) } == [7])
        let census = try #require(Environment.registry.census(of: env.path))
        #expect(census.live == 1 && census.peak == 1, "\(census)")
    }

    @Test func aSuspendedEnvironmentIsHandedBackByOpenAndReopensWithTheSameDatabaseHandles() throws {
        let path = directory.sub("env")
        let env = try Environment.open(path: path, configuration: configuration)
        let items = try env.database("items")
        try env.write { txn in try txn.put(items, key: "k".bytes, value: [1]) }
        try env.suspend()
        try env.suspend()
        #expect(env.isSuspended)
        #expect(!Environment.isOpen(path: path))
        #expect(Environment.registry.census(of: env.path)?.live == 0)
        #expect(try Environment.open(path: path, configuration: configuration) === env)

        // The handle taken before the suspend still names the same database.
        #expect(try env.read { txn in try txn.get(items, key: "k".bytes) } == [1])
        #expect(!env.isSuspended)
        try env.suspend()
        try env.write { txn in try txn.put(items, key: "k".bytes, value: [2]) }
        try env.suspend()
        try env.resume()
        #expect(Environment.isOpen(path: path))
        #expect(try env.read { txn in try txn.get(items, key: "k".bytes) } == [2])
        let census = try #require(Environment.registry.census(of: env.path))
        #expect(census.live == 1 && census.peak == 1, "\(census)")
    }

    @Test func suspendWaitsForTheOpenTransactionToEnd() async throws {
        let env = try Environment.open(path: directory.sub("env"), configuration: configuration)
        let items = try env.database("items")
        let log = Mutex<[String]>([])
        let inside = DispatchSemaphore(value: 0)
        let reader = Thread {
            try? env.read { txn in
                inside.signal()
                Thread.sleep(forTimeInterval: 0.2)
                _ = try txn.get(items, key: "k".bytes)
                log.withLock { $0.append("read ended") }
            }
        }
        reader.start()
        inside.wait()
        try env.suspend()
        log.withLock { $0.append("suspended") }
        #expect(log.withLock { $0 } == ["read ended", "suspended"])
    }

    @Test func transactionsRacingRepeatedSuspendsNeverFailAndNeverOpenTwoHandles() async throws {
        let path = directory.sub("env")
        let configuration = configuration
        let env = try Environment.open(path: path, configuration: configuration)
        let items = try env.database("items")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for round in 0..<300 {
                        let key = "t\(task)-\(round)".bytes
                        try env.write { txn in try txn.put(items, key: key, value: [UInt8(task)]) }
                        #expect(try env.read { txn in try txn.get(items, key: key) } == [UInt8(task)])
                    }
                }
            }
            group.addTask {
                for _ in 0..<300 {
                    try env.suspend()
                    try Environment.open(path: path, configuration: configuration).resume()
                }
            }
            try await group.waitForAll()
        }
        #expect(try env.statistics(of: items).entries == 1_200)
        let census = try #require(Environment.registry.census(of: env.path))
        #expect(census.peak == 1, "at most one MDB_env per path at once: \(census)")
    }
}
