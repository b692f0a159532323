import Foundation
import LMDBKit
import TabKeepTestSupport
import Testing

/// Read-only work never writes: the commands that only look open the store `MDB_RDONLY`, so a
/// healthy store, a store whose `meta` is gone and a store missing a database all keep their
/// `data.mdb` byte for byte, and damage is reported, never repaired.
///
/// `lock.mdb` is not LMDB's data but its shared lock table, which every process that opens the
/// environment updates, reader or writer alike: the first opener re-initializes its mutexes and
/// reader count, a reader takes a slot for each transaction (writing its process, thread and
/// snapshot) and frees it when done, keeping its thread id, and a backup takes the writer mutex to
/// read the meta pages. What a writer, and only a writer, changes there is the last committed
/// transaction id. So from `lock.mdb` the test compares its size, its magic and format, and that
/// id, and checks that the command left no reader slot taken.
@Suite("Read-only commands never write")
struct ReadOnlyCommandTests {
    /// The read-only commands, each given a store path.
    static func commands(_ store: String, _ output: String) -> [[String]] {
        [
            ["show", store, "--profile", "alice"], ["show", store, "--profile", "alice", "--json"],
            ["profiles", store], ["dump", store], ["verify", store], ["stat", store],
            ["stat", store, "--json"],
            ["explain", store, "--profile", "alice"], ["backup", store, output],
        ]
    }

    struct Files: Equatable {
        var data: Data
        var lock: LockTable
        var modified: Date
        var names: [String]
    }

    /// What a writer changes in `lock.mdb`, read with liblmdb's layout on glibc (`MDB_txninfo`): a
    /// header of two 64-byte-aligned parts, the first holding magic and format (4 bytes each), the
    /// reader mutex, the last committed transaction id (8) and the reader count (4), the second
    /// the writer mutex; then 64-byte reader slots of snapshot (8 bytes), process id (4, padded to
    /// 8) and thread id (8).
    struct LockTable: Equatable {
        var size: Int
        var magicAndFormat: [UInt8]
        var lastTransaction: [UInt8]

        /// Reads `bytes` and returns the table with whether any reader slot is still taken.
        static func read(_ bytes: [UInt8]) -> (table: LockTable, taken: Bool) {
            #if os(Linux)
                let mutex = MemoryLayout<pthread_mutex_t>.size
                func aligned(_ size: Int) -> Int { (size + 63) / 64 * 64 }
                let transaction = 8 + mutex
                let count = transaction + 8
                let slots = aligned(count + 4) + aligned(mutex)
                guard bytes.count >= slots else {
                    return (LockTable(size: bytes.count, magicAndFormat: bytes, lastTransaction: []), false)
                }
                let readers = bytes[count..<count + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
                let taken = (0..<readers).contains { slot in
                    let process = slots + slot * 64 + 8
                    return process + 4 <= bytes.count && bytes[process..<process + 4].contains { $0 != 0 }
                }
                let table = LockTable(
                    size: bytes.count, magicAndFormat: Array(bytes[0..<8]),
                    lastTransaction: Array(bytes[transaction..<transaction + 8]))
                return (table, taken)
            #else
                // Apple platforms build liblmdb with POSIX semaphores, so the layout above does not
                // hold there: only the size is compared.
                return (LockTable(size: bytes.count, magicAndFormat: [], lastTransaction: []), false)
            #endif
        }
    }

    func files(_ store: String) throws -> Files {
        let attributes = try FileManager.default.attributesOfItem(atPath: store + "/data.mdb")
        // A per-transaction store has no lock.mdb; its own lock file holds no bytes to change.
        let lockFile = ["lock.mdb", Environment.transactionLockFileName].first {
            FileManager.default.fileExists(atPath: store + "/" + $0)
        }
        let lockBytes = Array(
            try Data(contentsOf: URL(fileURLWithPath: store + "/" + (lockFile ?? "lock.mdb"))))
        let lock =
            lockFile == "lock.mdb"
            ? LockTable.read(lockBytes)
            : (
                table: LockTable(size: lockBytes.count, magicAndFormat: lockBytes, lastTransaction: []),
                taken: false
            )
        #expect(!lock.taken, "a reader slot in \(store)/lock.mdb is still taken")
        return Files(
            data: try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb")),
            lock: lock.table, modified: attributes[.modificationDate] as! Date,
            names: try FileManager.default.contentsOfDirectory(atPath: store).sorted())
    }

    /// A store with two profiles, made by the tool.
    func healthyStore(_ path: String) throws {
        try Tool.ok([
            "set", path, "--profile", "alice", "--catalog", "home:fixed,inbox,search,library", "--move",
            "library=1",
        ])
        try Tool.ok(["set", path, "--profile", "bob", "--badge-add", "inbox=2"])
    }

    func runEveryCommand(
        on store: String, in directory: TemporaryDirectory, expecting status: Int32, _ what: String
    )
        throws -> [String]
    {
        var messages: [String] = []
        for (index, command) in Self.commands(store, directory.sub("copy-\(what)-\(UUID().uuidString)"))
            .enumerated()
        {
            let before = try files(store)
            let result = try Tool.run(command)
            #expect(
                result.status == status,
                "\(what): tabkeep \(command.joined(separator: " ")): \(result.stderr)")
            #expect(
                try files(store) == before,
                "\(what): tabkeep \(command[0]) (\(index)) changed the store's files")
            messages.append(result.stderr + result.stdout)
        }
        return messages
    }

    /// A copy of the store's records, record by record, without some databases, or with one empty:
    /// the damage a bad tool or a half-restored file leaves.
    func copy(from source: String, to target: String, leavingOut: Set<String>, emptying: String?) throws {
        let names = ["meta", "profiles", "catalogs", "changes"]
        do {
            let from = try Environment.open(path: source, configuration: Configuration(databases: names))
            let kept = names.filter { !leavingOut.contains($0) }
            let to = try Environment.open(path: target, configuration: Configuration(databases: kept))
            for name in kept where name != emptying {
                var records: [([UInt8], [UInt8])] = []
                let database = try from.database(name)
                try from.read { txn in
                    try txn.forEach(database) { key, value in
                        records.append((Array(key), Array(value)))
                        return true
                    }
                }
                let destination = try to.database(name)
                try to.write { txn in
                    for (key, value) in records { try txn.put(destination, key: key, value: value) }
                }
            }
        }
    }

    @Test func aHealthyStoreIsLeftByteForByte() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("healthy")
        try healthyStore(store)
        _ = try runEveryCommand(on: store, in: directory, expecting: 0, "healthy")
    }

    @Test func aStoreWhoseMetaIsGoneIsReportedNotGivenANewIdentity() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("no-meta")
        try healthyStore(store)
        #expect(try Tool.run(["verify", store]).status == 0)
        try copy(from: store, to: directory.sub("emptied"), leavingOut: [], emptying: "meta")
        try FileManager.default.removeItem(atPath: store)
        try FileManager.default.moveItem(atPath: directory.sub("emptied"), toPath: store)
        let messages = try runEveryCommand(on: store, in: directory, expecting: 1, "no meta")
        #expect(messages.allSatisfy { $0.contains("meta holds no schema or replica id") }, "\(messages)")
    }

    @Test func aStoreMissingADatabaseIsReportedNotRepaired() throws {
        let directory = TemporaryDirectory()
        let healthy = directory.sub("healthy")
        try healthyStore(healthy)
        let store = directory.sub("no-profiles")
        try copy(from: healthy, to: store, leavingOut: ["profiles"], emptying: nil)
        let messages = try runEveryCommand(on: store, in: directory, expecting: 1, "no profiles")
        #expect(messages.allSatisfy { $0.contains("the store has no \"profiles\" database") }, "\(messages)")
    }
}
