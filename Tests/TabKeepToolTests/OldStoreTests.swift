import Foundation
import TabKeepTestSupport
import Testing

/// A store written by the first release (schema 1, document format 1, dump format 1), committed in
/// Tests/Fixtures/schema1-store with the layouts that release showed for it: this release must show
/// the same, from the store and from its dump.
@Suite("Stores and dumps written by the first release")
struct OldStoreTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/schema1-store")
    /// (profile, bar, file of the layout the first release showed).
    static let shown = [
        ("alice", "main", "show-alice.json"), ("bob", "main", "show-bob.json"),
        ("carol", "main", "show-carol.json"), ("erin", "main", "show-erin.json"),
        ("dave", "side", "show-dave-side.json"),
    ]

    func expected(_ file: String) throws -> String {
        try String(contentsOf: Self.fixtures.appendingPathComponent(file), encoding: .utf8)
    }

    /// A copy of the fixture store in `directory`.
    func copyOfOldStore(in directory: TemporaryDirectory) throws -> String {
        let store = directory.sub("old")
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Self.fixtures.appendingPathComponent("data.mdb").path, toPath: store + "/data.mdb")
        return store
    }

    @Test func anOldStoreShowsTheLayoutsTheFirstReleaseShowed() throws {
        let directory = TemporaryDirectory()
        let store = try copyOfOldStore(in: directory)
        for (profile, bar, file) in Self.shown {
            let shown = try Tool.ok(["show", store, "--profile", profile, "--bar", bar, "--json"])
            #expect(shown == (try expected(file)), "\(profile)")
        }
        // Read-only work never migrates it: verify says so, and changes nothing.
        let verified = try Tool.run(["verify", store])
        #expect(verified.status == 1 && verified.stdout.contains("schema 1"))
        // The first open for writing migrates it; the layouts stay the same.
        try Tool.ok(["set", store, "--profile", "zoe", "--badge-add", "inbox=1"])
        #expect(try Tool.ok(["verify", store]).hasPrefix("ok"))
        for (profile, bar, file) in Self.shown {
            let shown = try Tool.ok(["show", store, "--profile", profile, "--bar", bar, "--json"])
            #expect(shown == (try expected(file)), "\(profile) after the migration")
        }
    }

    @Test func anOldDumpRestoresToTheSameLayouts() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("restored")
        let dump = Self.fixtures.appendingPathComponent("v1.tkdump").path
        #expect(
            try String(contentsOfFile: dump, encoding: .utf8).hasPrefix(
                #"{"format":"tabkeep-dump","version":1,"#))
        try Tool.ok(["restore", store, "--input", dump])
        for (profile, bar, file) in Self.shown {
            let shown = try Tool.ok(["show", store, "--profile", profile, "--bar", bar, "--json"])
            #expect(shown == (try expected(file)), "\(profile)")
        }
    }

    @Test func anOldStoreTakesNewEditsAndKeepsItsOtherTabsInPlace() throws {
        let directory = TemporaryDirectory()
        let store = try copyOfOldStore(in: directory)
        // alice, as the first release showed her: home library wallet settings inbox (wallet came
        // with an app update and follows library).
        #expect(
            try Tool.ok(["show", store, "--profile", "alice", "--json"]).contains(
                #""order":["home","library","wallet","settings","inbox"]"#))
        try Tool.ok(["set", store, "--profile", "alice", "--move", "settings=1"])
        #expect(
            try Tool.ok(["show", store, "--profile", "alice", "--json"]).contains(
                #""order":["home","settings","library","wallet","inbox"]"#))
        try Tool.ok(["set", store, "--profile", "alice", "--move", "inbox=1"])
        #expect(
            try Tool.ok(["show", store, "--profile", "alice", "--json"]).contains(
                #""order":["home","inbox","settings","library","wallet"]"#))
        #expect(try Tool.ok(["verify", store]).hasPrefix("ok"))
    }
}
