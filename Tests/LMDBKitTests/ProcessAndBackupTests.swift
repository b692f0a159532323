import Foundation
import Synchronization
import TabKeepTestSupport
import Testing

@testable import LMDBKit

#if canImport(LMDB)
    import LMDB
#else
    import CLMDB
#endif

@Suite("Backups and other processes")
struct ProcessAndBackupTests {
    let directory = TemporaryDirectory()

    @Test func aBackupTakenWhileAWriterCommitsHoldsEveryEarlierKey() async throws {
        let env = try Environment.open(path: directory.sub("env"), configuration: .init(databases: ["items"]))
        let items = try env.database("items")
        try env.write { txn throws in
            for i in 0..<1_000 { try txn.put(items, key: "before\(i)".bytes, value: [1]) }
        }
        let writer = Task.detached {
            for i in 0..<300 {
                try env.write { txn throws in
                    try txn.put(items, key: "during\(i)".bytes, value: [UInt8](repeating: 2, count: 500))
                }
            }
        }
        for (index, compact) in [false, true].enumerated() {
            let committedBefore = try env.read { txn throws in try txn.count(items) }
            let target = directory.sub("backup\(index)")
            try env.backup(to: target, compact: compact)
            let copy = try Environment.open(path: target, configuration: .init(databases: ["items"]))
            let copied = try copy.database("items")
            try copy.read { txn throws in
                #expect(try txn.count(copied) >= committedBefore)
                for i in 0..<1_000 { #expect(try txn.get(copied, key: "before\(i)".bytes) == [1]) }
            }
            let mode = try FileManager.default.attributesOfItem(atPath: target + "/data.mdb")[
                .posixPermissions]
            #expect((mode as? NSNumber)?.intValue == 0o600)
        }
        try await writer.value
    }

    @Test func aBackupIntoANonEmptyDirectoryIsRefused() throws {
        let env = try Environment.open(path: directory.sub("env"), configuration: .init(databases: ["items"]))
        let target = directory.sub("full")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: target + "/file", contents: Data([1])))
        #expect(throws: LMDBError.self) { try env.backup(to: target) }
    }

    // lmdb mode: mdb_dump reads beside this process through LMDB's own locks.
    @Test(.enabled(if: lmdbUtilitiesShareOurLMDB, "mdb_dump runs on another LMDB build"))
    func aSecondProcessSeesTheFirstOnesCommits() throws {
        let mdbDump = try #require(which("mdb_dump"), "mdb_dump from lmdb-utils is needed")
        let env = try Environment.open(
            path: directory.sub("env"), configuration: .init(databases: ["items"], locking: .lmdb))
        let items = try env.database("items")
        for round in 0..<3 {
            try env.write { txn throws in try txn.put(items, key: "round\(round)".bytes, value: "seen".bytes)
            }
            let (status, output) = try run(mdbDump, ["-p", "-s", "items", env.path])
            #expect(status == 0)
            #expect(output.contains("round\(round)"))
        }
    }

    @Test func mdbStatReadsAnEnvironmentLMDBKitMade() throws {
        let mdbStat = try #require(which("mdb_stat"), "mdb_stat from lmdb-utils is needed")
        let env = try Environment.open(
            path: directory.sub("env"), configuration: .init(databases: ["items", "more"]))
        let items = try env.database("items")
        try env.write { txn throws in for i in 0..<10 { try txn.put(items, key: "k\(i)".bytes, value: [1]) } }
        let (status, output) = try run(mdbStat, ["-a", env.path])
        #expect(status == 0)
        #expect(output.contains("Status of items"))
        #expect(output.contains("Entries: 10"))
        #expect(output.contains("Status of more"))
    }

    @Test func staleReaderSlotsCanBeCleared() throws {
        let env = try Environment.open(path: directory.sub("env"), configuration: .init(databases: ["items"]))
        #expect(try env.clearStaleReaders() == 0)
        #expect(try env.info().maxReaders == 126)
    }
}

@Suite("Maps grown by other processes")
struct MapResizeTests {
    let directory = TemporaryDirectory()

    // lmdb mode: mdb_load writes beside this process through LMDB's own locks (per-transaction
    // mode: PerTransactionLockingTests, with an LMDBKit process).
    @Test(.enabled(if: lmdbUtilitiesShareOurLMDB, "mdb_load runs on another LMDB build"))
    func aMapGrownByAnotherProcessIsAdopted() throws {
        let mdbLoad = try #require(which("mdb_load"), "mdb_load from lmdb-utils is needed")
        let env = try Environment.open(
            path: directory.sub("env"),
            configuration: .init(databases: ["items"], initialMapSize: 64 << 10, locking: .lmdb))
        let items = try env.database("items")
        try env.write { txn in try txn.put(items, key: "mine".bytes, value: [1]) }
        let before = try env.info().mapSize
        // mdb_load, another process, grows the map to the 4 MiB its input names and fills part of it.
        let input = directory.sub("input.txt")
        let header = "VERSION=3\nformat=print\ntype=btree\nmapsize=4194304\nHEADER=END\n"
        let records = (0..<2_000).map { " other\($0)\n " + String(repeating: "x", count: 300) + "\n" }
        try (header + records.joined() + "DATA=END\n").write(toFile: input, atomically: true, encoding: .utf8)
        let (status, _) = try run(mdbLoad, ["-s", "items", "-f", input, env.path])
        #expect(status == 0)
        try env.read { txn throws in
            #expect(try txn.get(items, key: "mine".bytes) == [1])
            #expect(try txn.get(items, key: "other1999".bytes)?.count == 300)
        }
        #expect(try env.info().mapSize > before)
        try env.write { txn in try txn.put(items, key: "after".bytes, value: [2]) }
    }
}

extension MapResizeTests {
    /// A handle being opened (the reopen for a first write, say) whose file another process grows
    /// between `mdb_env_open` and the handle's first transaction: LMDB refuses that transaction
    /// with `MDB_MAP_RESIZED`, and the opening adopts the grown map instead of failing the open.
    @Test(.enabled(if: lmdbUtilitiesShareOurLMDB, "mdb_load runs on another LMDB build"))
    func aMapGrownWhileAHandleOpensIsAdoptedByItsFirstTransaction() throws {
        let mdbLoad = try #require(which("mdb_load"), "mdb_load from lmdb-utils is needed")
        let path = directory.sub("opening")
        let env = try Environment.open(
            path: path, configuration: .init(databases: ["items"], initialMapSize: 64 << 10, locking: .lmdb))
        let items = try env.database("items")
        try env.write { txn in try txn.put(items, key: "mine".bytes, value: [1]) }
        var raw: OpaquePointer?
        #expect(mdb_env_create(&raw) == 0)
        let handle = try #require(raw)
        defer { mdb_env_close(handle) }
        #expect(mdb_env_set_maxdbs(handle, 8) == 0)
        #expect(mdb_env_set_mapsize(handle, 64 << 10) == 0)
        #expect(mdb_env_open(handle, path, UInt32(MDB_NOTLS), 0o600) == 0)
        let input = directory.sub("opening.txt")
        let header = "VERSION=3\nformat=print\ntype=btree\nmapsize=4194304\nHEADER=END\n"
        let records = (0..<2_000).map { " other\($0)\n " + String(repeating: "x", count: 300) + "\n" }
        try (header + records.joined() + "DATA=END\n").write(toFile: input, atomically: true, encoding: .utf8)
        #expect(try run(mdbLoad, ["-s", "items", "-f", input, path]).status == 0)
        // What the handle's first transaction meets, begun as it was before:
        var plain: OpaquePointer?
        #expect(mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &plain) == MDB_MAP_RESIZED)
        let txn = try Environment.beginOpening(handle, readOnly: true)
        defer { mdb_txn_abort(txn) }
        var dbi: MDB_dbi = 0
        #expect(mdb_dbi_open(txn, "items", 0, &dbi) == 0)
        var key = MDB_val(mv_size: 9, mv_data: strdup("other1999"))
        defer { free(key.mv_data) }
        var value = MDB_val()
        #expect(mdb_get(txn, dbi, &key, &value) == 0)
        #expect(value.mv_size == 300)
    }
}

@Suite("Backup files")
struct BackupFileTests {
    let directory = TemporaryDirectory()

    @Test func aBackupIsModeSixHundredAndNeverGoesThroughALink() throws {
        let env = try Environment.open(path: directory.sub("env"), configuration: .init(databases: ["items"]))
        let items = try env.database("items")
        try env.write { txn in try txn.put(items, key: "a".bytes, value: [1]) }
        try env.backup(to: directory.sub("copy"))
        var status = stat()
        #expect(lstat(directory.sub("copy/data.mdb"), &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        try FileManager.default.createDirectory(
            atPath: directory.sub("real"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
            atPath: directory.sub("link"), withDestinationPath: directory.sub("real"))
        #expect(throws: LMDBError.destinationIsSymbolicLink(directory.sub("link"))) {
            try env.backup(to: directory.sub("link"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.sub("real")).isEmpty)
    }
}

@Suite("Reading the map while it grows")
struct MapGrowthTests {
    let directory = TemporaryDirectory()

    @Test func figuresAndBackupsTakenWhileTheMapGrowsAreWhole() async throws {
        let env = try Environment.open(
            path: directory.sub("env"),
            configuration: .init(databases: ["items"], initialMapSize: 64 << 10, maxMapSize: 1 << 30))
        let items = try env.database("items")
        let value = [UInt8](repeating: 0xCD, count: 8_000)
        let grower = Task.detached {
            for batch in 0..<60 {
                try env.write { txn throws in
                    for i in 0..<50 { try txn.put(items, key: "b\(batch)-\(i)".bytes, value: value) }
                }
            }
        }
        let grown = Flag()
        let watcher = Task.detached {
            var calls = 0
            while !grown.isSet {
                let info = try env.info()
                #expect(info.lastPage * info.pageSize < info.mapSize)
                calls += 1
            }
            return calls
        }
        let targets = (0..<40).map { directory.sub("copy\($0)") }
        var backups = 0
        var lastTransaction = 0
        // Until the grower is done (an event, not a time): figures and backups race its map growth.
        while backups < targets.count {
            let info = try env.info()
            #expect(info.lastPage * info.pageSize < info.mapSize)
            #expect(env.lastTransactionID >= lastTransaction)
            lastTransaction = env.lastTransactionID
            let committed = try env.read { txn throws in try txn.count(items) }
            try env.backup(to: targets[backups], compact: backups % 2 == 1)
            let copy = try Environment.open(
                path: targets[backups], configuration: .init(databases: ["items"]))
            let copied = try copy.database("items")
            try copy.read { txn throws in #expect(try txn.count(copied) >= committed) }
            backups += 1
            if try env.read({ txn throws in try txn.count(items) }) == 3_000 { break }
        }
        try await grower.value
        grown.set()
        #expect(try await watcher.value > 0)
        #expect(backups > 0)
    }
}

/// A flag one task sets and others read.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
