import Foundation
import LMDBKit
import TabKeep
import TabKeepDump
import TabKeepTestSupport
import Testing

/// A store written by schema 4 (main at 6e7f44b), committed in Tests/Fixtures/schema4-store with
/// what that build showed, listed and dumped: read-only tools read it where it is
/// (`Schema3StoreTests.readOnlyToolsReadAnOlderStoreWithoutRaisingIt`), and the first
/// writing open raises it to schema 5 with the same content; the edits after it keep their
/// newest change-log records in LMDB's main database (the tail), and what follows the log (a
/// scoped sync's "what changed since", `verify`) reads them as one run with the older ones.
@Suite("Stores written by schema 4")
struct Schema4StoreTests {
    static let schema4 = Schema2StoreTests.fixtures.appendingPathComponent("schema4-store")
    let old = Schema2StoreTests()
    let schema3 = Schema3StoreTests()

    @Test func theFirstWritingOpenRaisesItToSchema5AndLaterEditsWaitInTheTail() throws {
        let directory = TemporaryDirectory()
        let store = try old.copy(Self.schema4, in: directory)
        let (documents, revision, oldLog) = try {
            let opened = try TabKeepStore(path: store, options: .init(readOnly: true))
            return (
                try Schema3StoreTests.documents(opened),
                try opened.versionVectorsDigestsAndRevision(.all).revision,
                try changeLogRevisions(opened)
            )
        }()
        #expect(oldLog.tail.isEmpty && oldLog.settled.last == revision, "a schema-4 log is all in changes")
        do {
            let raised = try TabKeepStore(path: store)
            #expect(try Schema3StoreTests.documents(raised) == documents && documents.count == 8)
            #expect(try raised.verify().problems == [])
            #expect(try raised.profilesChanged(after: revision) == [], "the raise is no change")
        }
        #expect(try old.schema(store) == TabKeepStore.schemaVersion)
        try schema3.expectTheFixturesLayouts(store, "after the raise", fixture: Self.schema4)
        var edited: Set<ProfileID> = []
        for (step, name) in ["alice", "bob", "carol", "alice", "frank", "bob", "dave", "carol", "erin"]
            .enumerated()
        {
            try Tool.ok(["set", store, "--profile", name, "--badge-add", "inbox=1"])
            edited.insert(try ProfileID(name))
            let opened = try TabKeepStore(path: store, options: .init(readOnly: true))
            let now = try opened.versionVectorsDigestsAndRevision(.all).revision
            let log = try changeLogRevisions(opened)
            #expect(now == revision + UInt64(step + 1))
            #expect(log.tail == Array(stride(from: max(revision, now - now % 8) + 1, through: now, by: 1)))
            #expect(log.settled + log.tail == oldLog.settled + Array((revision + 1)...now), "edit \(step)")
            #expect(
                log.tail.count < 8 && (log.tail.first.map { $0 > log.settled.last! } ?? true), "edit \(step)")
            #expect(try opened.profilesChanged(after: revision) == edited, "edit \(step)")
        }
        #expect(
            try Tool.ok(["show", store, "--profile", "bob", "--json"]).contains(#""badges":{"inbox":9}"#))
        #expect(try Tool.ok(["verify", store]).hasPrefix("ok"))
    }
}
