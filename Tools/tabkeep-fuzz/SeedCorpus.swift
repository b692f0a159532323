import Foundation
import TabKeep
import TabKeepDump
import TabKeepSync

/// Writes the seed corpus (`tabkeep-fuzz make-corpus Tests/Fuzz/Corpus`): real documents, dumps
/// and sync messages from a small scratch store, so mutations start from valid inputs.
enum SeedCorpus {
    static func write(to root: String) throws {
        let scratch = FileManager.default.temporaryDirectory.path + "/tabkeep-fuzz-seed-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let tabs = try ["home", "inbox", "search", "library", "settings", "help"].map { try TabID($0) }
        let catalog = try Catalog(tabs)
        let store = try TabKeepStore(path: scratch + "/a", options: .init(durability: .deferred))
        let other = try TabKeepStore(path: scratch + "/b", options: .init(durability: .deferred))
        try store.registerCatalog(catalog)
        try other.registerCatalog(catalog)
        let edits: [[TabBarEdit]] = [
            [.move(tabs[3], to: 0)],
            [.setBadge(tabs[1], 5), .setBadgeText(tabs[1], "5"), .select(.tab(tabs[2]))],
            [.reorder(tabs.reversed()), .setHidden(tabs[5], true), .setCustomizable(Array(tabs.prefix(3)))],
            [.addToBadge(tabs[1], 3), .addToBadge(tabs[1], -10), .select(.more)],
            [.setBadgeText(tabs[0], "\"q\\u{7}\" ✓"), .reset, .move(tabs[4], to: 1)],
        ]
        for (index, edit) in edits.enumerated() {
            try store.edit(try ProfileID("user-\(index)"), edit)
            try other.edit(try ProfileID("user-\(index % 2)"), bar: try BarID("side"), catalog: catalog, edit)
        }
        try store.erase(try ProfileID("user-4"))
        var seeds: [String: [[UInt8]]] = [:]
        try store.forEachDocument { _, result in
            seeds["document", default: []].append(try result.get().encoded())
        }
        seeds["document", default: []].append(TabBarDocument().encoded())
        var dump: [UInt8] = []
        try store.dump { dump += $0 }
        var small: [UInt8] = []
        try other.dump(profiles: [try ProfileID("user-1")]) { small += $0 }
        seeds["dump"] = [dump, small]
        let request = try SyncSession(store: store).request()
        let reply = try SyncSession(store: other).respond(to: request)
        let final = try SyncSession(store: store).receive(reply).reply!
        seeds["message"] = [request.encoded(), reply.encoded(), final.encoded()]
        for (target, inputs) in seeds {
            let directory = root + "/" + target
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // Seeds of an older format would stay behind and be refused: replace them all.
            for old in try FileManager.default.contentsOfDirectory(atPath: directory)
            where old.hasPrefix("seed-") {
                try FileManager.default.removeItem(atPath: directory + "/" + old)
            }
            for (index, input) in inputs.enumerated() {
                try Data(input).write(to: URL(fileURLWithPath: directory + "/seed-\(index)"))
            }
            print("\(target): \(inputs.count) seeds")
        }
    }
}
