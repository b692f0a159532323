import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@Suite("tabkeep commands that fail change nothing")
struct AllOrNothingTests {
    /// The bytes of a store's data file, to show a failed command wrote nothing.
    func dataBytes(_ store: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))
    }

    @Test func aSetWhoseEditIsRefusedDoesNotRegisterItsCatalog() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        try Tool.ok(["set", store, "--profile", "p", "--bar", "other", "--catalog", "a,b"])
        let before = try dataBytes(store)
        let result = try Tool.run([
            "set", store, "--profile", "p", "--catalog", appTabsSpec, "--move", "bogus=1",
        ])
        #expect(result.status == 1 && result.stderr.hasPrefix("tabkeep: error: edit refused"))
        #expect(try dataBytes(store) == before, "the refused set committed something")
        let shown = try Tool.run(["show", store, "--profile", "p"])
        #expect(shown.status == 1 && shown.stderr.contains("no catalog"))
    }

    @Test func anEraseThatCannotEraseEveryBarErasesNone() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", appTabsSpec, "--select", "inbox"])
        try Tool.ok([
            "set", store, "--profile", "alice", "--bar", "side", "--catalog", "a,b", "--select", "b",
        ])
        do {
            let opened = try TabKeepStore(path: store)
            let documents = opened.documentsDatabase
            let side = DocumentKey(profile: try ProfileID("alice"), bar: try BarID("side"))
            try opened.environment.write { txn in
                try txn.put(documents, key: opened.documentRecordKey(side), value: [0xFF])
            }
        }
        let before = try dataBytes(store)
        let result = try Tool.run(["erase", store, "--profile", "alice"])
        #expect(result.status == 1 && result.stderr.contains("corrupt document"), "\(result.stderr)")
        #expect(try dataBytes(store) == before, "the failed erase committed the bars it could erase")
        let shown = try Tool.ok(["show", store, "--profile", "alice", "--json"])
        #expect(shown.contains("\"selected\":\"inbox\""))
    }
}
