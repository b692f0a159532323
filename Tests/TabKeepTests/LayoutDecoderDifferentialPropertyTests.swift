import TabKeepTestSupport
import Testing

@testable import TabKeep

/// The layout-only decoder against its slow twin, `TabBarDocument(decoding:)` then `layout(catalog:)`:
/// the same valid and mutated bytes must be accepted and refused alike, and resolve to the same layout.
@Suite("Layout decoder, differential")
struct LayoutDecoderDifferentialPropertyTests {
    static func replay(_ seed: UInt64) -> String {
        replayLine(seed: seed, filter: "LayoutDecoderDifferentialPropertyTests")
    }

    /// Catalogs with every placement, ids the documents lack, ids only old documents have, an old
    /// id listed as a tab of its own, a non-ASCII id, and none at all. None has a rename: for a
    /// renamed catalog `LayoutDecoder` hands off to the full decoder, and an arm with one would
    /// compare the full path with itself.
    static let catalogs: [Catalog] = [
        oldIDListedCatalog,
        try! Catalog(tabs: randomCatalog.tabs),
        randomCatalogBefore,
        unicodeCatalog,
        lettersCatalog(7),
        try! Catalog([]),
    ]

    /// The random catalog's tabs with the id it renames, `old-a`, listed as a tab of its own
    /// after `a` and no rename, so the fast path meets the ids old documents wrote as live tabs.
    static let oldIDListedCatalog = try! Catalog(
        tabs: Array(randomCatalog.tabs[...1]) + [Catalog.Tab(tab("old-a"))] + randomCatalog.tabs[2...])

    /// Like the random catalog, with a non-ASCII id in the middle of the byte order.
    static let unicodeCatalog = try! Catalog(
        tabs: [
            Catalog.Tab(tab("home"), placement: .fixed),
            Catalog.Tab(tab("a")),
            Catalog.Tab(tab("café")),
            Catalog.Tab(tab("c"), placement: .movable),
            Catalog.Tab(tab("d"), placement: .optional),
            Catalog.Tab(tab("ñ")),
            Catalog.Tab(tab("f")),
        ])

    /// Valid documents: random replicas' documents and merges of them (edited through every catalog,
    /// so ids of other catalogs, old ids and clears appear), some with first-format position keys.
    static func validDocuments(count: Int, seed: UInt64) -> [TabBarDocument] {
        var rng = SplitMix64(seed: seed)
        var result: [TabBarDocument] = []
        while result.count < count {
            var documents = randomReplicaDocuments(&rng, steps: 6 + Int(rng.next() % 30))
            documents.append(documents.reduce(TabBarDocument()) { $0.merging($1) })
            documents.append(unicodeDocument(&rng))
            documents.append(contentsOf: badgeDocuments(&rng))
            for document in documents {
                result.append(document)
                if rng.next() % 3 == 0 { result.append(withLegacyPositions(document, &rng)) }
            }
        }
        return result
    }

    /// Badge-heavy documents: three replicas setting, adding to and clearing the badges of two tabs,
    /// resetting the bar and merging each other's documents at random, so that clears keep the
    /// totals they saw (format 2), badge sets keep the sequences they saw, removed totals stand
    /// between live ones, and a clear can have seen a total newer than a live set did. Each
    /// replica's document and the merge of all three.
    static func badgeDocuments(_ rng: inout SplitMix64) -> [TabBarDocument] {
        let catalog = randomCatalog
        let badged = [catalog.tabs[1].id, catalog.tabs[2].id]
        var replicas = (0..<3).map { simulatedReplica(UInt64($0 + 11) &* 0x1_0000_0001) }
        var documents = [TabBarDocument](repeating: TabBarDocument(), count: 3)
        for _ in 0..<(8 + rng.next() % 24) {
            let who = Int(rng.next() % 3)
            let tab = badged[Int(rng.next() % 2)]
            let edit: TabBarEdit
            switch rng.next() % 10 {
            case 0, 1, 2:
                documents[who].merge(documents[Int(rng.next() % 3)])
                continue
            case 3: edit = .setBadge(tab, Int(rng.next() % 6))
            case 4, 5, 6: edit = .addToBadge(tab, Int(rng.next() % 7) - 2)
            case 7: edit = .clearBadge(tab)
            case 8: edit = .reset
            default: edit = .setBadgeText(tab, rng.next() % 2 == 0 ? "n" : nil)
            }
            try? documents[who].apply(edit, catalog: catalog, by: &replicas[who])
        }
        return documents + [documents.reduce(TabBarDocument()) { $0.merging($1) }]
    }

    /// A document edited at random through the non-ASCII catalog.
    static func unicodeDocument(_ rng: inout SplitMix64) -> TabBarDocument {
        var replica = simulatedReplica(7)
        var document = TabBarDocument()
        for _ in 0..<(4 + rng.next() % 12) {
            let edit = randomEdit(
                &rng, catalog: unicodeCatalog, layout: document.layout(catalog: unicodeCatalog))
            try? document.apply(edit, catalog: unicodeCatalog, by: &replica)
        }
        return document
    }

    /// `document` with first-format position keys (ties included) for some tabs that have no
    /// position entry, as stores written before places hold them.
    static func withLegacyPositions(_ document: TabBarDocument, _ rng: inout SplitMix64) -> TabBarDocument {
        var entries = document.entries
        let candidates = ["a", "b", "c", "d", "e", "f", "g", "old-a", "café", "zz"].map(tab)
        var sequence: UInt64 = 1_000
        for id in candidates where rng.next() % 2 == 0 && document.entry(for: .position(id)) == nil {
            let length = 1 + Int(rng.next() % 3)
            var key = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next() % 4) }
            key[length - 1] = max(1, key[length - 1])
            sequence += 1
            let replica = ReplicaID(rawValue: 0x77)
            let dot = Dot(replica: replica, sequence: sequence)
            // A clear covering the new dot would need a tombstone: keep them live by a dot it lacks.
            if document.context.contains(dot) { continue }
            entries.append(
                Entry(
                    key: .position(id), value: .position(key), stamp: Stamp(rawValue: sequence),
                    origin: replica,
                    dot: dot))
        }
        return (try? TabBarDocument(entries: entries)) ?? document
    }

    /// Both paths on `bytes` with `catalog`: true when they agree.
    static func agree(_ bytes: [UInt8], _ catalog: Catalog) -> Bool {
        let full: Result<Layout, DocumentDecodingError>
        do throws(DocumentDecodingError) {
            full = .success(try TabBarDocument(decoding: bytes).layout(catalog: catalog))
        } catch {
            full = .failure(error)
        }
        let fast: Result<Layout, DocumentDecodingError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(DocumentDecodingError) {
                return .success(try LayoutDecoder.layout(decoding: buffer, catalog: catalog))
            } catch {
                return .failure(error)
            }
        }
        switch (full, fast) {
        case (.success(let expected), .success(let actual)):
            // Every property, and the per-tab badge reads that build no dictionary.
            return expected == actual
                && catalog.tabs.allSatisfy { entry in
                    actual.badge(for: entry.id) == expected.badges[entry.id]
                        && actual.badgeText(for: entry.id) == expected.badgeTexts[entry.id]
                        && expected.badge(for: entry.id) == expected.badges[entry.id]
                }
        case (.failure, .failure): return true
        default: return false
        }
    }

    /// Every arm reaches the fast path: `LayoutDecoder` takes the full path for a catalog with
    /// renames, and the comparison would then be of the full path with itself.
    @Test func everyCatalogReachesTheFastPath() {
        for (index, catalog) in Self.catalogs.enumerated() {
            #expect(catalog.renames.isEmpty, "catalog \(index) has renames")
        }
        #expect(Self.oldIDListedCatalog.tabs.contains { $0.id == tab("old-a") })
    }

    @Test func validDocumentsResolveToTheSameLayout() throws {
        let documents = Self.validDocuments(count: 3_000, seed: 0x1A70_0001)
        var legacy = 0
        var cleared = 0
        var clearsWithTotals = 0
        var setsWithSequences = 0
        var removedTotals = 0
        for (index, document) in documents.enumerated() {
            let bytes = document.encoded()
            if document.entries.contains(where: { if case .position = $0.value { true } else { false } }) {
                legacy += 1
            }
            if document.entries.last?.key == .cleared { cleared += 1 }
            if case .context(_, let badges)? = document.entries.last?.value, !badges.isEmpty {
                clearsWithTotals += 1
            }
            for entry in document.entries {
                if case .badgeReset(_, _, let sequences) = entry.value, !sequences.isEmpty {
                    setsWithSequences += 1
                }
                if case .badgeIncrements = entry.key, entry.value == .removed { removedTotals += 1 }
            }
            for (catalogIndex, catalog) in Self.catalogs.enumerated() {
                let agrees = Self.agree(bytes, catalog)
                #expect(agrees, "document \(index), catalog \(catalogIndex), \(Self.replay(0x1A70_0001))")
                if !agrees { return }
            }
        }
        // The generators reach the paths that matter: first-format keys and clears.
        #expect(legacy > 100)
        #expect(cleared > 100)
        // And the badge rules: a clear's totals, a set's sequences, removed totals.
        #expect(clearsWithTotals > 100)
        #expect(setsWithSequences > 100)
        #expect(removedTotals > 100)
    }

    @Test func mutatedDocumentsAreAcceptedAndRefusedAlike() throws {
        let documents = Self.validDocuments(count: 200, seed: 0x1A70_0002)
        var rng = SplitMix64(seed: 0x1A70_0003)
        var accepted = 0
        var refused = 0
        for round in 0..<20_000 {
            var bytes = documents[round % documents.count].encoded()
            for _ in 0...(rng.next() % 3) {
                let position = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 5 {
                case 0: bytes[position] = UInt8(truncatingIfNeeded: rng.next())
                case 1: bytes[position] ^= 1 << UInt8(rng.next() % 8)
                case 2: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: position)
                case 3: bytes.remove(at: position)
                default: bytes[position] = UInt8(rng.next() % 3)  // small values: tags, kinds, flags
                }
                if bytes.isEmpty { bytes = [1] }
            }
            let catalog = Self.catalogs[round % Self.catalogs.count]
            let agrees = Self.agree(bytes, catalog)
            if !agrees {
                let smallest = shrinkBytes(bytes) { !Self.agree($0, catalog) }
                Issue.record(
                    """
                    round \(round): \(bytes)
                    smallest input that still disagrees (\(smallest.count) of \(bytes.count) bytes): \(smallest)
                    \(Self.replay(0x1A70_0003))
                    """)
            }
            #expect(agrees, "round \(round): \(bytes)")
            if !agrees { return }
            if (try? TabBarDocument(decoding: bytes)) != nil { accepted += 1 } else { refused += 1 }
        }
        // Both decisions are exercised: some mutations (a stamp, a badge total) stay valid.
        #expect(accepted > 500)
        #expect(refused > 5_000)
    }

    @Test func everyTruncationIsRefusedAlike() {
        for document in Self.validDocuments(count: 30, seed: 0x1A70_0004) {
            let bytes = document.encoded()
            for length in 0...bytes.count {
                #expect(
                    Self.agree(Array(bytes[..<length]), Self.catalogs[1]),
                    "length \(length), \(Self.replay(0x1A70_0004))")
            }
        }
    }
}
