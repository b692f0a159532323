import Foundation
import LMDBKit
import TabKeep
import TabKeepTestSupport
import Testing

/// A store written by schema 5 (main at 76c0dc6), committed in Tests/Fixtures/schema5-store with
/// what that build showed, listed and dumped: read-only tools read it where it is, dot records and
/// all (`Schema3StoreTests.readOnlyToolsReadAnOlderStoreWithoutRaisingIt`), and the first writing
/// open migrates it to schema 6, which keeps no dot records, with the same documents and vectors;
/// syncs, edits and `verify` go on from there.
@Suite("Stores written by schema 5")
struct Schema5StoreTests {
    static let schema5 = Schema2StoreTests.fixtures.appendingPathComponent("schema5-store")
    let old = Schema2StoreTests()
    let schema3 = Schema3StoreTests()

    /// The number of dot records (profile ‖ 0 ‖ o ‖ …) in the store at `path`.
    static func dotRecords(_ path: String) throws -> Int {
        let store = try TabKeepStore(path: path, options: .init(readOnly: true))
        var count = 0
        try store.environment.read { txn in
            try store.forEachDotRecord(txn) { _, _ in
                count += 1
                return true
            }
        }
        return count
    }

    @Test func theFirstWritingOpenDeletesTheDotRecordsAndKeepsEverythingElse() throws {
        let directory = TemporaryDirectory()
        let store = try old.copy(Self.schema5, in: directory)
        let (documents, vectors) = try {
            let opened = try TabKeepStore(path: store, options: .init(readOnly: true))
            return (try Schema3StoreTests.documents(opened), try opened.versionVectors())
        }()
        #expect(try Self.dotRecords(store) == 24, "a record for each of the 24 dots the documents hold")
        #expect(try old.schema(store) == 5)
        do {
            let migrated = try TabKeepStore(path: store)
            #expect(try Schema3StoreTests.documents(migrated) == documents && documents.count == 8)
            #expect(try migrated.versionVectors() == vectors)
            let report = try migrated.verify()
            #expect(report.problems == [] && report.dots > 0, "\(report.figures)")
        }
        #expect(try old.schema(store) == 6)
        #expect(try Self.dotRecords(store) == 0)
        try schema3.expectTheFixturesLayouts(store, "after the migration", fixture: Self.schema5)
        #expect(try Tool.ok(["verify", store]).hasPrefix("ok"))
    }

    /// A migrated store syncs with a new one both ways (the reply finds each changed profile's
    /// bars by reading its documents, not through dot records), edits go on, and both stores end
    /// with the same layouts, every one the fixture's where no edit touched it.
    @Test func aMigratedStoreSyncsAndEditsAsBefore() throws {
        let directory = TemporaryDirectory()
        let store = try old.copy(Self.schema5, in: directory)
        let fresh = directory.sub("fresh")
        // A new replica with the fixture's two catalogs (make.sh's), and a profile of its own.
        try Tool.ok([
            "set", fresh, "--profile", "zed", "--catalog",
            "home:fixed,inbox,search,library,wallet,settings,labs:optional", "--select", "inbox",
        ])
        try Tool.ok([
            "set", fresh, "--profile", "zed", "--bar", "side", "--catalog",
            "notes,tasks,files:optional,trash",
            "--select", "tasks",
        ])
        try Tool.ok(["sync", fresh, "--peer", store])
        try schema3.expectTheFixturesLayouts(fresh, "synced from the migrated store", fixture: Self.schema5)
        try Tool.ok(["set", store, "--profile", "alice", "--badge-add", "inbox=1"])
        try Tool.ok(["set", fresh, "--profile", "bob", "--move", "wallet=0"])
        try Tool.ok(["erase", fresh, "--profile", "carol"])
        try Tool.ok(["sync", store, "--peer", fresh])
        for (profile, bar) in Schema2StoreTests.shown + [("zed", "main"), ("zed", "side")] {
            let shown = try Tool.ok(["show", store, "--profile", profile, "--bar", bar, "--json"])
            #expect(
                shown == (try Tool.ok(["show", fresh, "--profile", profile, "--bar", bar, "--json"])),
                "\(profile)/\(bar)")
            if !["alice", "bob", "carol", "zed"].contains(profile) {
                #expect(
                    shown == (try schema3.expected("show-\(profile)-\(bar).json", in: Self.schema5)),
                    "\(profile)/\(bar)")
            }
        }
        #expect(
            try Tool.ok(["show", store, "--profile", "carol", "--json"])
                == (try Tool.ok(["show", fresh, "--profile", "nobody", "--json"]))
                .replacingOccurrences(of: "\"nobody\"", with: "\"carol\""))
        for path in [store, fresh] {
            #expect(try Tool.ok(["verify", path]).hasPrefix("ok"))
            #expect(try Self.dotRecords(path) == 0)
        }
    }
}
