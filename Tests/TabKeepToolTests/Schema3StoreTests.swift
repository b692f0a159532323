import Foundation
import LMDBKit
import TabKeep
import TabKeepDump
import TabKeepTestSupport
import Testing

/// A store written by schema 3 (main at 3ca56d4), committed in Tests/Fixtures/schema3-store with
/// what that build showed, listed and dumped: read-only tools read it where it is, and the first
/// writing open raises it to the current schema (layout records since 4) with the same content; edits then store
/// layouts that read as the documents do.
@Suite("Stores written by schema 3")
struct Schema3StoreTests {
    static let schema3 = Schema2StoreTests.fixtures.appendingPathComponent("schema3-store")
    let old = Schema2StoreTests()

    func expected(_ file: String, in fixture: URL = Self.schema3) throws -> String {
        try String(contentsOf: fixture.appendingPathComponent(file), encoding: .utf8)
    }

    func expectTheFixturesLayouts(_ store: String, _ when: String, fixture: URL = Self.schema3) throws {
        for (profile, bar) in Schema2StoreTests.shown {
            let shown = try Tool.ok(["show", store, "--profile", profile, "--bar", bar, "--json"])
            #expect(
                shown == (try expected("show-\(profile)-\(bar).json", in: fixture)),
                "\(profile)/\(bar) \(when)")
        }
    }

    /// Every document of `store`, as its canonical bytes.
    static func documents(_ store: TabKeepStore) throws -> [DocumentKey: [UInt8]] {
        var documents: [DocumentKey: [UInt8]] = [:]
        try store.forEachDocument { key, document in documents[key] = try document.get().encoded() }
        return documents
    }

    /// The schema-3 fixture, the schema-4 one (Tests/Fixtures/schema4-store, made by the schema-4
    /// build `6e7f44b` with the same script) and the schema-5 one (`76c0dc6`, the same script, dot
    /// records and all): read where they are.
    @Test(arguments: [(Self.schema3, 3), (Schema4StoreTests.schema4, 4), (Schema5StoreTests.schema5, 5)])
    func readOnlyToolsReadAnOlderStoreWithoutRaisingIt(fixture: URL, schema: Int) throws {
        let directory = TemporaryDirectory()
        let store = try old.copy(fixture, in: directory)
        let before = try old.data(store)
        try expectTheFixturesLayouts(store, "read-only", fixture: fixture)
        #expect(try Tool.ok(["profiles", store]) == (try expected("profiles.txt", in: fixture)))
        #expect(try Tool.ok(["verify", store]).hasPrefix("ok"))
        #expect(try old.schema(store) == schema)
        #expect(
            try old.records(try Tool.ok(["dump", store]), directory)
                == old.records(try expected("v3.tkdump", in: fixture), directory))
        #expect(try old.data(store) == before, "a read-only tool changed the schema-\(schema) store")
    }

    @Test func theFirstWritingOpenRaisesItToTheCurrentSchemaAndEditsStoreLayouts() throws {
        let directory = TemporaryDirectory()
        let store = try old.copy(Self.schema3, in: directory)
        let documents = try Self.documents(try TabKeepStore(path: store, options: .init(readOnly: true)))
        do {
            let raised = try TabKeepStore(path: store)
            #expect(try Self.documents(raised) == documents && documents.count == 8)
            #expect(try raised.verify().problems == [])
        }
        #expect(try old.schema(store) == TabKeepStore.schemaVersion)
        try expectTheFixturesLayouts(store, "after the raise")
        // Edits store each document's layout; every read still shows what the document says.
        try Tool.ok(["set", store, "--profile", "alice", "--move", "wallet=1"])
        try Tool.ok(["set", store, "--profile", "bob", "--badge-add", "inbox=1"])
        let opened = try TabKeepStore(path: store, options: .init(readOnly: true))
        let stored = try opened.environment.read { txn in
            try ["alice", "bob", "carol"].map {
                try txn.get(
                    opened.documentsDatabase,
                    key: opened.layoutRecordKey(DocumentKey(profile: profile($0), bar: .main))) != nil
            }
        }
        #expect(stored == [true, true, false], "layout records of alice, bob, carol")
        let catalog = try #require(try opened.catalog())
        for name in ["alice", "bob", "carol"] {
            let document = try opened.document(profile(name)) ?? TabBarDocument()
            #expect(try opened.layout(profile(name)) == document.layout(catalog: catalog), "\(name)")
        }
        #expect(
            try Tool.ok(["show", store, "--profile", "bob", "--json"]).contains(#""badges":{"inbox":8}"#))
        #expect(try Tool.ok(["verify", store]).hasPrefix("ok"))
    }

    /// A build of schema 3 opening this one's store: refused by name, nothing written. (The
    /// refusal is the older build's own `newerSchema` check, which these builds share; here the
    /// store claims the next schema, as a schema-4 store does to a schema-3 build.)
    @Test func aStoreOfANewerSchemaIsRefusedByNameAndLeftAlone() throws {
        let directory = TemporaryDirectory()
        let store = try old.copy(Self.schema3, in: directory)
        _ = try TabKeepStore(path: store)
        let newer = TabKeepStore.schemaVersion + 1
        try {
            let opened = try TabKeepStore(path: store)
            try opened.environment.write { txn in
                try txn.put(
                    try opened.environment.database("meta"), key: Array("schema".utf8),
                    value: withUnsafeBytes(of: UInt64(newer).bigEndian) { Array($0) })
            }
        }()
        let before = try old.data(store)
        let result = try Tool.run(["set", store, "--profile", "alice", "--badge", "inbox=1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("schema \(newer)"), "\(result.stderr)")
        #expect(try old.data(store) == before)
    }
}
