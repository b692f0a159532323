import Foundation
import LMDBKit
import TabKeepTestSupport
import Testing

@Suite("Environment")
struct EnvironmentTests {
    let directory = TemporaryDirectory()

    func open(_ name: String = "env", _ configuration: Configuration = .init(databases: ["items"])) throws
        -> Environment
    {
        try Environment.open(path: directory.sub(name), configuration: configuration)
    }

    @Test func putGetAndDeleteSurviveCloseAndReopen() throws {
        do {
            let env = try open()
            let items = try env.database("items")
            try env.write { txn throws in
                for i in 0..<100 { try txn.put(items, key: "k\(i)".bytes, value: "v\(i)".bytes) }
                #expect(try txn.delete(items, key: "k7".bytes))
                #expect(try !txn.delete(items, key: "absent".bytes))
            }
        }
        let env = try open()
        let items = try env.database("items")
        try env.read { txn throws in
            #expect(try txn.get(items, key: "k42".bytes) == "v42".bytes)
            #expect(try txn.get(items, key: "k7".bytes) == nil)
            #expect(try txn.count(items) == 99)
        }
    }

    @Test func aThrowingWriteClosureLeavesNothingBehind() throws {
        struct Refused: Error {}
        let env = try open()
        let items = try env.database("items")
        try env.write { txn throws in try txn.put(items, key: "kept".bytes, value: [1]) }
        #expect(throws: Refused.self) {
            try env.write { txn throws in
                try txn.put(items, key: "kept".bytes, value: [2])
                try txn.put(items, key: "new".bytes, value: [3])
                throw Refused()
            }
        }
        try env.read { txn throws in
            #expect(try txn.get(items, key: "kept".bytes) == [1])
            #expect(try txn.get(items, key: "new".bytes) == nil)
        }
    }

    @Test func aSixtyFourKilobyteMapTakesFiftyMegabytesOfWrites() throws {
        let env = try open(
            "small", .init(databases: ["items"], initialMapSize: 64 << 10, maxMapSize: 1 << 30))
        let items = try env.database("items")
        let value = [UInt8](repeating: 0xAB, count: 10_000)
        for batch in 0..<50 {
            try env.write { txn throws in
                for i in 0..<100 { try txn.put(items, key: "b\(batch)-\(i)".bytes, value: value) }
            }
        }
        #expect(try env.info().mapSize >= 50_000_000)
        try env.read { txn throws in
            #expect(try txn.count(items) == 5_000)
            #expect(try txn.get(items, key: "b49-99".bytes) == value)
        }
    }

    @Test func aFullMapAtItsMaximumIsAClearErrorAndKeepsEarlierCommits() throws {
        let env = try open(
            "capped", .init(databases: ["items"], initialMapSize: 64 << 10, maxMapSize: 1 << 20))
        let items = try env.database("items")
        try env.write { txn throws in try txn.put(items, key: "first".bytes, value: [1]) }
        let big = [UInt8](repeating: 1, count: 100_000)
        #expect(throws: LMDBError.mapFull) {
            try env.write { txn throws in
                for i in 0..<20 { try txn.put(items, key: "big\(i)".bytes, value: big) }
            }
        }
        #expect(LMDBError.mapFull.description.contains("MDB_MAP_FULL"))
        try env.read { txn throws in #expect(try txn.get(items, key: "first".bytes) == [1]) }
    }

    @Test func twoReadTransactionsOnOneThreadWork() throws {
        let env = try open()
        let items = try env.database("items")
        try env.write { txn throws in try txn.put(items, key: "a".bytes, value: [1]) }
        try env.read { outer throws in
            try env.read { inner throws in
                #expect(try inner.get(items, key: "a".bytes) == [1])
            }
            #expect(try outer.get(items, key: "a".bytes) == [1])
        }
    }

    @Test func aWriteInsideATransactionOnTheSameThreadFailsLoudly() throws {
        let env = try open()
        #expect(throws: LMDBError.nestedTransaction) {
            try env.read { _ in try env.write { _ in } }
        }
        #expect(throws: LMDBError.nestedTransaction) {
            try env.write { _ in try env.write { _ in } }
        }
    }

    @Test func concurrentReadersSeeOnlyWholeCommittedSnapshots() async throws {
        let env = try open()
        let items = try env.database("items")
        let keys = (0..<20).map { "key\($0)".bytes }
        try env.write { txn throws in for key in keys { try txn.put(items, key: key, value: [0, 0, 0, 0]) } }
        // Each commit writes the same generation number under every key; a reader that saw two
        // different generations in one transaction would have seen a torn snapshot.
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for generation in 1...200 {
                    let bytes = withUnsafeBytes(of: UInt32(generation).bigEndian) { Array($0) }
                    try env.write { txn throws in
                        for key in keys { try txn.put(items, key: key, value: bytes) }
                    }
                }
                return 0
            }
            for _ in 0..<8 {
                group.addTask {
                    var snapshots = 0
                    for _ in 0..<300 {
                        let generations = try env.read { txn throws in
                            try Set(keys.map { try txn.get(items, key: $0)! })
                        }
                        #expect(generations.count == 1)
                        snapshots += 1
                    }
                    return snapshots
                }
            }
            var total = 0
            for try await count in group { total += count }
            #expect(total == 2_400)
        }
    }

    @Test func openingTheSamePathTwiceYieldsOneEnvironment() throws {
        let first = try open()
        let second = try Environment.open(
            path: directory.sub("env") + "/.", configuration: .init(databases: ["items"]))
        #expect(first === second)
        #expect(throws: LMDBError.unknownDatabase("other")) {
            try Environment.open(path: directory.sub("env"), configuration: .init(databases: ["other"]))
        }
    }

    @Test func emptyAndOversizedKeysGiveClearErrors() throws {
        let env = try open()
        let items = try env.database("items")
        #expect(env.maxKeySize == 511)
        let long = [UInt8](repeating: 0x61, count: 512)
        let error = #expect(throws: LMDBError.self) {
            try env.write { txn throws in try txn.put(items, key: long, value: [1]) }
        }
        #expect(error == .keyTooLong(size: 512, limit: 511))
        #expect(error?.description == "key of 512 bytes is longer than the limit of 511 bytes")
        #expect(throws: LMDBError.emptyKey) {
            try env.read { txn throws in try txn.get(items, key: []) }
        }
        try env.write { txn throws in try txn.put(items, key: Array(long.prefix(511)), value: [1]) }
    }

    /// The raw-key twins (keys built on the stack) store, read and delete what the array-key
    /// methods do, and refuse the same keys and transactions with the same errors, changing nothing.
    @Test func rawKeyMethodsMatchTheArrayKeyOnes() throws {
        let env = try open()
        let items = try env.database("items")
        func put(_ txn: borrowing Transaction, _ key: [UInt8], _ value: [UInt8]) throws {
            try key.withUnsafeBytes { k in
                try value.withUnsafeBytes { try txn.put(items, rawKey: k, value: $0) }
            }
        }
        func reserve(_ txn: borrowing Transaction, _ key: [UInt8], _ value: [UInt8]) throws {
            try key.withUnsafeBytes { k in
                try txn.reserve(items, rawKey: k, count: value.count) { $0.copyBytes(from: value) }
            }
        }
        func delete(_ txn: borrowing Transaction, _ key: [UInt8]) throws -> Bool {
            try key.withUnsafeBytes { try txn.delete(items, rawKey: $0) }
        }
        func get(_ txn: borrowing Transaction, _ key: [UInt8]) throws -> [UInt8]? {
            try key.withUnsafeBytes { try txn.withValue(items, rawKey: $0) { $0.map { Array($0) } } }
        }
        let key: [UInt8] = [0x6B, 0x00, 0xFF]
        try env.write { txn throws in try put(txn, key, [9, 8, 7]) }
        #expect(try env.read { txn throws in try txn.get(items, key: key) } == [9, 8, 7])
        #expect(try env.read { txn throws in try get(txn, key) } == [9, 8, 7])
        try env.write { txn throws in try reserve(txn, key, [1, 2]) }
        #expect(try env.read { txn throws in try txn.get(items, key: key) } == [1, 2])
        let long = [UInt8](repeating: 0x61, count: 512)
        for bad in [[], long] {
            let expected: LMDBError = bad.isEmpty ? .emptyKey : .keyTooLong(size: 512, limit: 511)
            #expect(throws: expected) { try env.write { txn throws in try put(txn, bad, [1]) } }
            #expect(throws: expected) { try env.write { txn throws in try reserve(txn, bad, [1]) } }
            #expect(throws: expected) { try env.write { txn throws in try delete(txn, bad) } }
            #expect(throws: expected) { try env.read { txn throws in try get(txn, bad) } }
        }
        #expect(throws: LMDBError.readOnlyTransaction) {
            try env.read { txn throws in try put(txn, key, [1]) }
        }
        #expect(throws: LMDBError.readOnlyTransaction) {
            try env.read { txn throws in try reserve(txn, key, [1]) }
        }
        #expect(throws: LMDBError.readOnlyTransaction) { try env.read { txn throws in try delete(txn, key) } }
        #expect(try env.read { txn throws in try txn.get(items, key: key) } == [1, 2])
        #expect(try env.write { txn throws in try delete(txn, key) })
        #expect(try !env.write { txn throws in try delete(txn, key) })
        #expect(try env.read { txn throws in try txn.get(items, key: key) } == nil)
    }

    @Test func unknownDatabasesAndReadOnlyWritesAreRefused() throws {
        let env = try open()
        #expect(throws: LMDBError.unknownDatabase("nope")) { try env.database("nope") }
        let items = try env.database("items")
        #expect(throws: LMDBError.readOnlyTransaction) {
            try env.read { txn throws in try txn.put(items, key: [1], value: [1]) }
        }
    }

    @Test func dataAndLockFilesAreModeSixHundred() throws {
        let env = try open()
        let lockFile = env.locking == .lmdb ? "lock.mdb" : Environment.transactionLockFileName
        for file in ["data.mdb", lockFile] {
            let attributes = try FileManager.default.attributesOfItem(atPath: env.path + "/" + file)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o600, "\(file) has mode \(String(mode ?? 0, radix: 8))")
        }
    }

    @Test func errorsCarryLMDBsText() {
        #expect(LMDBError.notFound.description.contains("MDB_NOTFOUND"))
        #expect(LMDBError.system(errno: 2).description == "No such file or directory")
        #expect(LMDBError.keyExists.code == -30799)
    }

    @Test func durabilityModesOpenAndCommit() throws {
        for durability in Durability.allCases {
            let env = try open("d-\(durability)", .init(databases: ["items"], durability: durability))
            let items = try env.database("items")
            try env.write { txn throws in try txn.put(items, key: [1], value: [2]) }
            try env.sync()
            try env.read { txn throws in #expect(try txn.get(items, key: [1]) == [2]) }
        }
    }
}
