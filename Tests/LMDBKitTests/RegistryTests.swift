import Foundation
import TabKeepTestSupport
import Testing

@testable import LMDBKit

@Suite("One environment per path")
struct RegistryTests {
    let directory = TemporaryDirectory()

    /// The `mdb_load` input that puts `count` records named `prefix…` into `items`.
    func loadInput(_ prefix: String, count: Int) -> String {
        let records = (0..<count).map { " \(prefix)\($0)\n value\n" }
        return "VERSION=3\nformat=print\ntype=btree\nHEADER=END\n" + records.joined() + "DATA=END\n"
    }

    @Test(.enabled(if: lmdbUtilitiesShareOurLMDB, "mdb_load runs on another LMDB build"))
    func openingWhileTheLastReferenceGoesAwayNeverOpensASecondHandle() async throws {
        let mdbLoad = try #require(which("mdb_load"), "mdb_load from lmdb-utils is needed")
        let mdbStat = try #require(which("mdb_stat"), "mdb_stat from lmdb-utils is needed")
        let path = directory.sub("env")
        // lmdb mode: mdb_load writes beside this process through LMDB's own locks.
        let configuration = Configuration(databases: ["items"], locking: .lmdb)
        let canonical = try Environment.open(path: path, configuration: configuration).path
        let inputs = (0..<20).map { (directory.sub("input-\($0).txt"), loadInput("other\($0)-", count: 50)) }
        let writer = Task.detached {
            for (input, text) in inputs {
                try text.write(toFile: input, atomically: true, encoding: .utf8)
                let (status, _) = try run(mdbLoad, ["-s", "items", "-f", input, path])
                #expect(status == 0)
            }
        }
        // Each task opens and drops the environment again and again, mostly reading (a write every
        // 100 rounds), so last releases and new opens of the same path keep meeting.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<3 {
                group.addTask {
                    for round in 0..<3_000 {
                        let env = try Environment.open(path: path, configuration: configuration)
                        let items = try env.database("items")
                        let key = "t\(task)-\(round / 100)".bytes
                        if round % 100 == 0 {
                            try env.write { txn throws in try txn.put(items, key: key, value: [1]) }
                        }
                        try env.read { txn throws in #expect(try txn.get(items, key: key) == [1]) }
                    }
                }
            }
            try await group.waitForAll()
        }
        try await writer.value
        let census = Environment.registry.census(of: canonical)
        #expect(census?.peak == 1, "at most one MDB_env per path at once: \(String(describing: census))")
        let env = try Environment.open(path: path, configuration: configuration)
        let items = try env.database("items")
        try env.read { txn throws in
            #expect(try txn.count(items) == 3 * 30 + 20 * 50)
            #expect(try txn.get(items, key: "t2-29".bytes) == [1])
        }
        let (status, output) = try run(mdbStat, ["-r", path])
        #expect(output.contains("Reader Table Status"), "mdb_stat -r exited \(status)")
    }

    @Test func reopeningAnOpenPathWithAnotherConfigurationIsRefused() throws {
        let path = directory.sub("env")
        let env = try Environment.open(path: path, configuration: .init(databases: ["items"]))
        let refusals: [(Configuration, String)] = [
            (.init(databases: ["items"], durability: .deferred), "durability"),
            (.init(databases: ["items"], maxMapSize: 1 << 30), "maximum map size"),
            (.init(databases: ["items"], maxReaders: 10), "reader count"),
            (.init(databases: ["items"], fileMode: 0o640), "file mode"),
        ]
        for (configuration, setting) in refusals {
            #expect(throws: LMDBError.configurationMismatch(path: env.path, setting: setting)) {
                try Environment.open(path: path, configuration: configuration)
            }
        }
        // The start size may differ (the live map keeps its size), and fewer databases may be named.
        #expect(
            try Environment.open(
                path: path, configuration: .init(databases: ["items"], initialMapSize: 8 << 20)) === env)
        #expect(try Environment.open(path: path, configuration: .init()) === env)
    }

    @Test func aFullyClosedPathOpensAgainWithAnotherConfiguration() throws {
        let path = directory.sub("env")
        do {
            let env = try Environment.open(path: path, configuration: .init(databases: ["items"]))
            let items = try env.database("items")
            try env.write { txn throws in try txn.put(items, key: "kept".bytes, value: [1]) }
        }
        #expect(!Environment.isOpen(path: path))
        let env = try Environment.open(
            path: path, configuration: .init(databases: ["items"], durability: .deferred))
        #expect(env.configuration.durability == .deferred)
        let items = try env.database("items")
        try env.read { txn throws in #expect(try txn.get(items, key: "kept".bytes) == [1]) }
    }
}
