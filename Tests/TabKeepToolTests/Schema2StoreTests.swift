import Foundation
import LMDBKit
import TabKeep
import TabKeepDump
import TabKeepTestSupport
import Testing

/// A store written by schema 2 (main at 82f4c52), committed in Tests/Fixtures/schema2-store with
/// what that build showed, dumped, listed and counted for it: read-only tools read it where it is,
/// and the first writing open migrates it to the current schema (4) with the same content.
@Suite("Stores written by schema 2")
struct Schema2StoreTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let schema2 = fixtures.appendingPathComponent("schema2-store")
    /// (profile, bar) of every layout the fixture keeps, erin's erased one included.
    static let shown = [
        ("alice", "main"), ("bob", "main"), ("carol", "main"), ("dave", "main"), ("dave", "side"),
        ("erin", "main"), ("frank", "main"), ("gina", "side"),
    ]

    func expected(_ file: String) throws -> String {
        try String(contentsOf: Self.schema2.appendingPathComponent(file), encoding: .utf8)
    }

    /// A copy of the fixture's `data.mdb` in a new store directory.
    func copy(_ fixture: URL, in directory: TemporaryDirectory, as name: String = "old") throws -> String {
        let store = directory.sub(name)
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: fixture.appendingPathComponent("data.mdb").path, toPath: store + "/data.mdb")
        return store
    }

    func data(_ store: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))
    }

    func schema(_ store: String) throws -> Int? {
        let line = try Tool.ok(["stat", store]).split(separator: "\n").first { $0.hasPrefix("schema") }
        // "schema       2" (a read-only tool adds what the first writing open will do).
        return line.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } }
    }

    func expectTheFixturesLayouts(_ store: String, _ when: String) throws {
        for (profile, bar) in Self.shown {
            let shown = try Tool.ok(["show", store, "--profile", profile, "--bar", bar, "--json"])
            #expect(shown == (try expected("show-\(profile)-\(bar).json")), "\(profile)/\(bar) \(when)")
        }
    }

    /// The records of a dump (the header's replica and times aside), whatever its version.
    func records(_ dump: String, _ directory: TemporaryDirectory) throws -> [DumpRecord] {
        let path = directory.sub("dump-\(UInt64.random(in: 0...UInt64.max))")
        try Data(dump.utf8).write(to: URL(fileURLWithPath: path))
        let reader = try DumpReader(path: path)
        var result: [DumpRecord] = []
        while let record = try reader.next() { result.append(record) }
        return result
    }

    @Test func readOnlyToolsReadASchema2StoreWithoutMigratingIt() throws {
        let directory = TemporaryDirectory()
        let store = try copy(Self.schema2, in: directory)
        let before = try data(store)
        try expectTheFixturesLayouts(store, "read-only")
        #expect(try Tool.ok(["profiles", store]) == (try expected("profiles.txt")))
        #expect(try Tool.ok(["verify", store]).hasPrefix("ok"))
        #expect(try schema(store) == 2)
        let dumped = try Tool.ok(["dump", store])
        // Today's dump is version 3; the old build wrote version 2: the same records.
        #expect(try records(dumped, directory) == records(try expected("v2.tkdump"), directory))
        #expect(try data(store) == before, "a read-only tool changed the schema-2 store")
        let opened = try TabKeepStore(path: store, options: .init(readOnly: true))
        #expect(try opened.statistics().databases.map(\.name).contains("documents"))
    }

    @Test func theFirstWritingOpenMigratesToTheCurrentSchemaWithTheSameContent() throws {
        let directory = TemporaryDirectory()
        let store = try copy(Self.schema2, in: directory)
        let (vectors, documents): ([ProfileID: VersionVector], [DocumentKey: [UInt8]]) = try {
            let old = try TabKeepStore(path: store, options: .init(readOnly: true))
            var documents: [DocumentKey: [UInt8]] = [:]
            try old.forEachDocument { key, document in documents[key] = try document.get().encoded() }
            return (try old.versionVectors(), documents)
        }()
        #expect(documents.count == 8 && vectors.count == 7)
        do {
            let migrated = try TabKeepStore(path: store)
            #expect(try migrated.versionVectors() == vectors)
            var after: [DocumentKey: [UInt8]] = [:]
            try migrated.forEachDocument { key, document in after[key] = try document.get().encoded() }
            #expect(after == documents)
            #expect(try migrated.verify().problems == [])
            #expect(
                try migrated.statistics().databases.map(\.name) == [
                    "meta", "profiles", "catalogs", "changes",
                ])
        }
        #expect(try schema(store) == TabKeepStore.schemaVersion)
        #expect(try Tool.ok(["verify", store]).hasPrefix("ok"))
        try expectTheFixturesLayouts(store, "after the migration")
        #expect(try Tool.ok(["profiles", store]) == (try expected("profiles.txt")))
        #expect(
            try records(try Tool.ok(["dump", store]), directory)
                == records(try expected("v2.tkdump"), directory))
        // It takes edits and syncs: a new device gets every profile, and the edit.
        try Tool.ok(["set", store, "--profile", "alice", "--move", "wallet=1"])
        let moved = try Tool.ok(["show", store, "--profile", "alice", "--json"])
        #expect(
            moved != (try expected("show-alice-main.json")) && moved.contains(#""order":["home","wallet""#))
        let peer = directory.sub("peer")
        _ = try TabKeepStore(path: peer)
        try Tool.ok(["sync", store, "--peer", peer])
        #expect(try Tool.ok(["profiles", peer]) == (try expected("profiles.txt")))
        // Sync carries documents, not catalogs: the peer registers the app's catalog to show them.
        let catalog = "home:fixed,inbox,search,library,wallet,settings,labs:optional"
        try Tool.ok(["set", peer, "--profile", "bob", "--catalog", catalog, "--badge-add", "inbox=1"])
        #expect(try Tool.ok(["show", peer, "--profile", "alice", "--json"]) == moved)
        try Tool.ok(["sync", peer, "--peer", store])
        #expect(
            try Tool.ok(["show", store, "--profile", "bob", "--json"])
                == (try Tool.ok(["show", peer, "--profile", "bob", "--json"])))
        #expect(
            try Tool.ok(["show", store, "--profile", "bob", "--json"]) != (try expected("show-bob-main.json"))
        )
        #expect(
            try Tool.ok(["verify", store]).hasPrefix("ok") && (try Tool.ok(["verify", peer])).hasPrefix("ok"))
    }

    @Test func aSchema1StoreMigratesStraightToTheCurrentSchema() throws {
        let directory = TemporaryDirectory()
        let store = try copy(Self.fixtures.appendingPathComponent("schema1-store"), in: directory)
        #expect(try schema(store) == 1)
        _ = try TabKeepStore(path: store)
        #expect(try schema(store) == TabKeepStore.schemaVersion)
        #expect(try Tool.ok(["verify", store]).hasPrefix("ok"))
        let shown = try Tool.ok(["show", store, "--profile", "alice", "--json"])
        let before = try String(
            contentsOf: Self.fixtures.appendingPathComponent("schema1-store/show-alice.json"), encoding: .utf8
        )
        #expect(shown == before)
    }

    /// Schema 3's edits write no clock to `meta`: each transaction reads it from the change
    /// log's last record. Many edits in one millisecond, across reopens, still get strictly
    /// increasing stamps (a clock read from `meta` alone would restart each at the wall clock).
    @Test func stampsKeepIncreasingWithTheClockInTheChangeLog() throws {
        let directory = TemporaryDirectory()
        let store = try copy(Self.schema2, in: directory)
        var stamps: [Stamp] = []
        for round in 0..<4 {
            let opened = try TabKeepStore(path: store, options: .init(durability: .deferred))
            for count in 0..<50 {
                // A new profile each time: no stored stamp of its own for the clock to observe.
                let fresh = try ProfileID("new-\(round)-\(count)")
                try opened.edit(fresh, .setBadge(try TabID("inbox"), count + 1))
                stamps.append(try #require(try opened.document(fresh)).maxStamp)
            }
        }
        let increasing = zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 }
        #expect(increasing, "stamps went back or repeated: \(stamps)")
    }
}
