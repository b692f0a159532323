import Foundation
import LMDBKit
import TabKeepTestSupport
import Testing

@Suite("Opened read-only until the first write")
struct WritableOnFirstWriteTests {
    let directory = TemporaryDirectory()

    func configuration(_ locking: Locking, databases: [String] = ["items"]) -> Configuration {
        var configuration = Configuration(databases: databases, locking: locking)
        configuration.writableOnFirstWrite = true
        return configuration
    }

    /// A store with one record, closed again.
    func existing(_ name: String, _ locking: Locking) throws -> String {
        let env = try Environment.open(
            path: directory.sub(name), configuration: .init(databases: ["items"], locking: locking))
        let items = try env.database("items")
        try env.write { txn in try txn.put(items, key: "a".bytes, value: "1".bytes) }
        let path = env.path
        try env.close()
        return path
    }

    @Test(arguments: Locking.allCases)
    func readsNeedNoWritableHandleAndTheFirstWriteReopensForWriting(_ locking: Locking) throws {
        let path = try existing("env", locking)
        let env = try Environment.open(path: path, configuration: configuration(locking))
        let items = try env.database("items")
        let openings = env.openings
        #expect(try env.read { txn in try txn.get(items, key: "a".bytes) } == "1".bytes)
        try env.sync()  // nothing written yet: nothing to flush, and no error
        #expect(env.openings == openings, "reading does not reopen")
        try env.write { txn in try txn.put(items, key: "b".bytes, value: "2".bytes) }
        #expect(env.openings == openings + 1, "the first write reopens the handle for writing")
        try env.write { txn in try txn.put(items, key: "c".bytes, value: "3".bytes) }
        #expect(env.openings == openings + 1, "later writes do not")
        try env.sync()
        try env.close()
        let again = try Environment.open(
            path: path, configuration: .init(databases: ["items"], locking: locking))
        let reopened = try again.database("items")
        #expect(try again.read { txn in try txn.count(reopened) } == 3)
    }

    /// A per-transaction directory whose lock file is there but whose data file is gone: the
    /// open no longer looks for the data file first, and LMDB's read-only open finding none
    /// sends it to the writable open, which makes a new, empty store.
    @Test func aLockFileWithoutItsDataFileOpensAsANewStore() throws {
        let path = try existing("env", .perTransaction)
        #expect(FileManager.default.fileExists(atPath: path + "/" + Environment.transactionLockFileName))
        try FileManager.default.removeItem(atPath: path + "/data.mdb")
        let env = try Environment.open(path: path, configuration: configuration(.perTransaction))
        #expect(env.locking == .perTransaction)
        let items = try env.database("items")
        #expect(try env.read { txn in try txn.count(items) } == 0)
        try env.write { txn in try txn.put(items, key: "b".bytes, value: [2]) }
        #expect(env.openings == 1, "the open was writable from the start")
        #expect(try env.read { txn in try txn.get(items, key: "b".bytes) } == [2])
    }

    @Test(arguments: Locking.allCases)
    func aNewStoreOrAMissingDatabaseIsOpenedForWritingAtOnce(_ locking: Locking) throws {
        let fresh = try Environment.open(path: directory.sub("fresh"), configuration: configuration(locking))
        let openings = fresh.openings
        try fresh.write { txn in try txn.put(try fresh.database("items"), key: "a".bytes, value: [1]) }
        #expect(fresh.openings == openings, "a new store was opened writable")
        let path = try existing("env", locking)
        let grown = try Environment.open(
            path: path, configuration: configuration(locking, databases: ["items", "added"]))
        let added = try grown.database("added")
        try grown.write { txn in try txn.put(added, key: "x".bytes, value: [2]) }
        #expect(grown.openings == 1, "the open that created a database was writable")
    }

    @Test(arguments: Locking.allCases)
    func aReservationAndASuspendWorkOnAReadOnlyHandle(_ locking: Locking) throws {
        let path = try existing("env", locking)
        var settings = configuration(locking)
        settings.durability = .deferred
        let env = try Environment.open(path: path, configuration: settings)
        try env.suspend()
        try env.resume()
        try env.reserveMapSize(atLeast: 8 << 20)
        #expect(try env.info().mapSize >= 8 << 20, "the reservation holds on the writable handle")
        let items = try env.database("items")
        try env.write { txn in try txn.put(items, key: "z".bytes, value: [9]) }
        try env.suspend()
        #expect(try env.read { txn in try txn.get(items, key: "z".bytes) } == [9])
    }
}
