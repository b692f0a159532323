import Foundation
import LMDBKit
import TabKeepTestSupport
import Testing

@testable import TabKeep

/// A launch read from the stored layout record (schema 4's `l` ‖ bar) against its slow twin, the
/// stored document decoded and resolved: over random scripts of edits, catalog changes, erases,
/// syncs, imports and profile merges, every read equals the twin and `verify` stays clean; a
/// mutated record is either refused (the read falls back to the document) or read exactly as
/// written, and `verify` reports every record a read would take that is not its document's layout.
@Suite("Stored layouts against decoded documents")
struct StoredLayoutDifferentialPropertyTests {
    /// Catalogs without renames (their layouts are stored) and the random catalog, whose rename
    /// keeps every layout of its bar out of the store.
    static let catalogs: [Catalog] = LayoutDecoderDifferentialPropertyTests.catalogs + [randomCatalog]
    static let profiles = ["p0", "p1", "p2"].map(profile)
    static let bars = [BarID.main, bar("side")]
    static var keys: [DocumentKey] {
        profiles.flatMap { profile in bars.map { DocumentKey(profile: profile, bar: $0) } }
    }

    /// The slow twin: the stored document (or an empty one) resolved against `catalog`.
    static func decoded(_ store: TabKeepStore, _ key: DocumentKey, _ catalog: Catalog) throws -> Layout {
        (try store.document(key.profile, bar: key.bar) ?? TabBarDocument()).layout(catalog: catalog)
    }

    /// The stored layout record of `key`, if any.
    static func record(_ store: TabKeepStore, _ key: DocumentKey) throws -> [UInt8]? {
        try store.environment.read { txn in
            try txn.get(store.documentsDatabase, key: store.layoutRecordKey(key))
        }
    }

    static func put(_ store: TabKeepStore, _ key: DocumentKey, _ record: [UInt8]) throws {
        try store.environment.write { txn in
            try txn.put(store.documentsDatabase, key: store.layoutRecordKey(key), value: record)
        }
    }

    @Test func everyReadEqualsTheDecodedDocumentThroughARandomScript() throws {
        var fastReads = 0
        var reads = 0
        for seed in propertySeeds(
            one: "TABKEEP_STORED_LAYOUT_SEED", many: "TABKEEP_STORED_LAYOUT_SEEDS", defaultCount: 8)
        {
            let replay = replayLine(
                seed: UInt64(seed), variable: "TABKEEP_STORED_LAYOUT_SEED",
                filter: "StoredLayoutDifferentialPropertyTests")
            var rng = SplitMix64(seed: 0x5707 &+ UInt64(seed))
            let directory = TemporaryDirectory()
            let store = try TabKeepStore(path: directory.sub("store"))
            let peer = try TabKeepStore(path: directory.sub("peer"))
            func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
            for bar in Self.bars {
                let catalog = pick(Array(Self.catalogs.dropLast()))
                try store.registerCatalog(catalog, for: bar)
                try peer.registerCatalog(catalog, for: bar)
            }
            for step in 0..<60 {
                let key = pick(Self.keys)
                let action = rng.next() % 14
                switch action {
                case 0...6:
                    let catalog = try #require(try store.catalog(for: key.bar))
                    let edit = randomEdit(
                        &rng, catalog: catalog, layout: try store.layout(key.profile, bar: key.bar))
                    do { try store.edit(key.profile, bar: key.bar, edit) } catch {}
                case 7:
                    try store.registerCatalog(pick(Self.catalogs), for: key.bar)
                case 8:
                    _ = try store.erase(key.profile)
                case 9, 10:
                    let catalog = try #require(try peer.catalog(for: key.bar))
                    let edit = randomEdit(
                        &rng, catalog: catalog, layout: try peer.layout(key.profile, bar: key.bar))
                    do { try peer.edit(key.profile, bar: key.bar, edit) } catch {}
                    try store.apply(try peer.delta(after: try store.versionVectors()))
                case 11:
                    if let theirs = try peer.document(key.profile, bar: key.bar) {
                        try store.importDocuments(mode: .merge) { add in try add(key, theirs) }
                    }
                case 12:
                    try store.mergeProfile(
                        pick(Self.profiles), into: key.profile, removingGuest: rng.next() % 2 == 0)
                default:
                    // A replace restore of the store's own documents, some left out: into a fresh
                    // file (no layout records) or in one transaction over the live one.
                    var kept: [(DocumentKey, TabBarDocument)] = []
                    try store.forEachDocument { key, document in
                        if rng.next() % 4 != 0 { kept.append((key, try document.get())) }
                    }
                    let strategy: ReplaceStrategy = rng.next() % 2 == 0 ? .oneTransaction : .replacementFile()
                    _ = try store.importDocuments(mode: .replace, strategy: strategy) { add in
                        for (key, document) in kept { try add(key, document) }
                    }
                }
                let problems = try store.verify().problems
                #expect(problems == [], "step \(step) (action \(action)): \(replay)")
                for key in Self.keys {
                    guard let catalog = try store.catalog(for: key.bar) else { continue }
                    reads += 1
                    if let record = try Self.record(store, key),
                        record.withUnsafeBytes({ CompactLayout(storedRecord: $0, catalog: catalog) }) != nil
                    {
                        fastReads += 1
                    }
                    #expect(
                        try store.layout(key.profile, bar: key.bar)
                            == (try Self.decoded(store, key, catalog)),
                        "step \(step) (action \(action)), \(key): \(replay)")
                    // Another catalog than the one registered: a record is never read with it.
                    let other = pick(Self.catalogs)
                    #expect(
                        try store.layout(key.profile, bar: key.bar, catalog: other)
                            == (try Self.decoded(store, key, other)),
                        "step \(step), \(key) with another catalog: \(replay)")
                }
            }
        }
        // A good share of reads took a record (the rest: bars never written since their catalog
        // changed, or with the renamed catalog), so both paths are what these scripts exercised.
        #expect(fastReads * 4 > reads, "\(fastReads) of \(reads) reads found a stored layout")
    }

    @Test func anEditStoresItsLayoutAndALaunchReadTakesIt() throws {
        let directory = TemporaryDirectory()
        let store = try TabKeepStore(path: directory.sub("store"))
        let catalog = lettersCatalog(7)
        try store.registerCatalog(catalog)
        let key = DocumentKey(profile: profile("ann"), bar: .main)
        #expect(try Self.record(store, key) == nil)
        try store.edit(key.profile, .move(tab("d"), to: 0))
        let stored = try #require(try Self.record(store, key))
        // The read takes the record: one of another document's layout is what it returns.
        try store.edit(profile("bob"), .setHidden(tab("b"), true))
        let bobs = try #require(try Self.record(store, DocumentKey(profile: profile("bob"), bar: .main)))
        try Self.put(store, key, bobs)
        #expect(try store.layout(key.profile) == (try store.layout(profile("bob"))))
        #expect(try store.layout(key.profile) != (try Self.decoded(store, key, catalog)))
        #expect(try store.verify().problems.contains { $0.contains("stored layout") && $0.contains("ann") })
        try Self.put(store, key, stored)
        #expect(try store.verify().problems == [])
        // The same catalog registered again rewrites nothing: bob's record stays in ann's place.
        try Self.put(store, key, bobs)
        try store.registerCatalog(catalog)
        #expect(try Self.record(store, key) == bobs)
        try Self.put(store, key, stored)
        // A new catalog: the registration resolves the record against it, and reads take it.
        let grown = try Catalog(catalog.tabs.map(\.id) + [tab("z")])
        try store.registerCatalog(grown)
        let rewritten = try #require(try Self.record(store, key))
        #expect(rewritten != stored)
        #expect(rewritten.withUnsafeBytes { CompactLayout.storedFingerprint($0) } == grown.fingerprint)
        #expect(try store.layout(key.profile) == (try Self.decoded(store, key, grown)))
        #expect(try store.verify().problems == [])
        try store.edit(key.profile, .setBadge(tab("z"), 2))
        let regrown = try #require(try Self.record(store, key))
        #expect(try regrown != rewritten && store.layout(key.profile).badges == [tab("z"): 2])
        // A catalog with renames stores no layouts: registering one deletes the record.
        try store.registerCatalog(randomCatalog)
        #expect(try Self.record(store, key) == nil)
        try store.edit(key.profile, .setBadge(tab("a"), 1))
        #expect(try Self.record(store, key) == nil)
        // A merge import resolves what it writes, as an edit does.
        try store.registerCatalog(catalog)
        try store.edit(key.profile, .setBadge(tab("a"), 3))
        #expect(try Self.record(store, key) != nil)
        let peer = try TabKeepStore(path: directory.sub("peer"))
        try peer.edit(key.profile, catalog: catalog, .setBadge(tab("c"), 4))
        let other = try #require(try peer.document(key.profile))
        let before = try Self.record(store, key)
        try store.importDocuments(mode: .merge) { add in try add(key, other) }
        let merged = try #require(try Self.record(store, key))
        #expect(try merged != before && store.layout(key.profile).badges[tab("c")] == 4)
        #expect(try store.layout(key.profile) == (try Self.decoded(store, key, catalog)))
        #expect(try store.verify().problems == [])
    }

    @Test func aChangedCatalogRewritesTheLayoutOfEveryDocumentOfItsBar() throws {
        let directory = TemporaryDirectory()
        let store = try TabKeepStore(path: directory.sub("store"))
        let catalog = lettersCatalog(6)
        let side = bar("side")
        try store.registerCatalog(catalog)
        try store.registerCatalog(catalog, for: side)
        // More documents of the bar than one pass of the walk holds, interleaved with another bar's.
        let count = TabKeepStore.layoutRefreshBatch * 2 + 37
        let profiles = (0..<count).map { profile("p\($0)") }
        let peer = try TabKeepStore(path: directory.sub("peer"))
        for (index, profile) in profiles.enumerated() {
            try peer.edit(profile, catalog: catalog, .move(tab("f"), to: index % 5))
            if index % 3 == 0 {
                try peer.edit(profile, bar: side, catalog: catalog, .setHidden(tab("b"), true))
            }
        }
        let documents = try peer.documentKeys().map {
            ($0, try #require(try peer.document($0.profile, bar: $0.bar)))
        }
        try store.importDocuments(mode: .merge) { add in
            for (key, document) in documents { try add(key, document) }
        }
        let sideRecords = try profiles.map { try Self.record(store, DocumentKey(profile: $0, bar: side)) }
        let renamed = try Catalog(Array(catalog.tabs.map(\.id).reversed()) + [tab("z")])
        try store.registerCatalog(renamed)
        for profile in profiles {
            let key = DocumentKey(profile: profile, bar: .main)
            let record = try #require(try Self.record(store, key), "no layout record for \(profile)")
            #expect(record.withUnsafeBytes { CompactLayout.storedFingerprint($0) } == renamed.fingerprint)
            #expect(try store.layout(profile) == (try Self.decoded(store, key, renamed)))
        }
        // The other bar's records are left as they were.
        #expect(
            try profiles.map { try Self.record(store, DocumentKey(profile: $0, bar: side)) } == sideRecords)
        #expect(try store.verify().problems == [])
        // A merge import that brings a changed catalog rewrites them as well, the documents it
        // does not feed included.
        try store.importDocuments(mode: .merge, catalogs: [(bar: .main, catalog: catalog)]) { _ in }
        for profile in profiles {
            let record = try #require(try Self.record(store, DocumentKey(profile: profile, bar: .main)))
            #expect(record.withUnsafeBytes { CompactLayout.storedFingerprint($0) } == catalog.fingerprint)
        }
        #expect(try store.verify().problems == [])
    }

    @Test func aMutatedRecordIsRefusedOrReadAsWrittenAndVerifyReportsIt() throws {
        let directory = TemporaryDirectory()
        let store = try TabKeepStore(path: directory.sub("store"))
        var rng = SplitMix64(seed: 0xBAD1A)
        var taken = 0
        var refused = 0
        for (round, catalog) in Self.catalogs.dropLast().enumerated() where !catalog.tabs.isEmpty {
            try store.registerCatalog(catalog)
            let key = DocumentKey(profile: profile("m\(round)"), bar: .main)
            for _ in 0..<12 {
                let edit = randomEdit(&rng, catalog: catalog, layout: try store.layout(key.profile))
                do { try store.edit(key.profile, edit) } catch {}
            }
            try store.edit(key.profile, .setBadgeText(catalog.tabs[0].id, "new"))
            let original = try #require(try Self.record(store, key))
            let truth = try Self.decoded(store, key, catalog)
            for _ in 0..<300 {
                var mutated = original
                switch rng.next() % 5 {
                case 0: mutated[Int(rng.next() % UInt64(mutated.count))] ^= UInt8(1 << (rng.next() % 8))
                case 1:
                    mutated[Int(rng.next() % UInt64(mutated.count))] = UInt8(truncatingIfNeeded: rng.next())
                case 2: mutated.removeLast(1 + Int(rng.next() % UInt64(mutated.count)))
                case 3: mutated.append(UInt8(truncatingIfNeeded: rng.next()))
                default:
                    // A count one off, so the walk meets a short or long body.
                    let field = 9 + 2 * Int(rng.next() % 4)
                    mutated[field] = mutated[field] &+ (rng.next() % 2 == 0 ? 1 : 255)
                }
                if mutated == original { continue }
                try Self.put(store, key, mutated)
                let fast = mutated.withUnsafeBytes { CompactLayout(storedRecord: $0, catalog: catalog) }
                let read = try store.layout(key.profile)
                if let fast {
                    taken += 1
                    #expect(
                        fast.storedRecord(fingerprint: catalog.fingerprint) == mutated, "not read as written")
                    #expect(read == Layout(compact: fast))
                    // Whatever it says, it is a layout of this catalog: every tab shown or hidden once.
                    #expect(Set(read.order + read.hidden) == Set(catalog.tabs.map(\.id)))
                    #expect(read.order.count + read.hidden.count == catalog.tabs.count)
                    #expect(Set(read.customizable).isSubset(of: read.order))
                    #expect(Set(read.badges.keys).isSubset(of: read.order))
                } else {
                    refused += 1
                    #expect(read == truth, "a refused record was not read through the document")
                }
                let malformed =
                    mutated.count < CompactLayout.storedHeader || mutated[0] != CompactLayout.storedFormat
                let namesCatalog =
                    !malformed
                    && mutated[1..<9].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                        == catalog.fingerprint
                let reported = !(try store.verify().problems.isEmpty)
                #expect(
                    reported == (malformed || namesCatalog), "verify on \(mutated) (original \(original))")
                if fast != nil {
                    #expect(reported, "a record a read takes, not the document's layout, passed verify")
                }
            }
            try Self.put(store, key, original)
            #expect(try store.verify().problems == [])
        }
        #expect(taken > 50 && refused > 50, "taken \(taken), refused \(refused)")
    }

    @Test func aLayoutRecordWithoutItsDocumentIsReported() throws {
        let directory = TemporaryDirectory()
        let store = try TabKeepStore(path: directory.sub("store"))
        try store.registerCatalog(lettersCatalog(5))
        try store.edit(profile("ann"), .move(tab("c"), to: 0))
        let record = try #require(try Self.record(store, DocumentKey(profile: profile("ann"), bar: .main)))
        try Self.put(store, DocumentKey(profile: profile("zed"), bar: .main), record)
        #expect(
            try store.verify().problems == [
                #"the stored layout of document "zed"/"main": there is no such document"#
            ])
    }
}
