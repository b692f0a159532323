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
        // ListObjectsV2 pages as AWS and SeaweedFS write them: entities, a continuation, none.
        seeds["list"] = [
            #"""
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>tabkeep-sync</Name><Prefix>users/alice/</Prefix><KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated><Contents><Key>users/alice/4608283cee1de149.tkdelta</Key><LastModified>2026-12-01T22:30:00.000Z</LastModified><ETag>&quot;5289df737df57326fcdd22597afb1fac&quot;</ETag><Size>145</Size><StorageClass>STANDARD</StorageClass></Contents><Contents><Key>users/alice/bab205bc634793dd.tkdelta</Key><ETag>"0b1c"</ETag><Size>83</Size></Contents></ListBucketResult>
            """#,
            #"""
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult><Name>b</Name><IsTruncated>true</IsTruncated><NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken><Contents><Key>p/e9868c2ba343ca1a.tkdelta</Key><ETag>&#34;abc-2&#34;</ETag><Size>0</Size></Contents></ListBucketResult>
            """#,
            #"""
            <ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>
            """#,
        ].map { Array($0.utf8) }
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
