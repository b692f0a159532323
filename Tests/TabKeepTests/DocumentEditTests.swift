import TabKeepTestSupport
import Testing

@testable import TabKeep

@Suite("Document edits")
struct DocumentEditTests {
    @Test func aReorderWritesOnlyTabsOutsideALongestIncreasingSubsequence() throws {
        let catalog = lettersCatalog(7)
        var replica = simulatedReplica(1)
        var document = try applying(
            [.reorder(tabs("a", "b", "c", "d", "e", "g", "f"))], to: TabBarDocument(), catalog: catalog,
            by: &replica)
        #expect(document.entries.count == 1)
        let sequence = replica.sequence
        // Moving two tabs: exactly two positions written, for the two tabs moved; no other tab gets one.
        try document.apply(.reorder(tabs("b", "c", "a", "d", "f", "e", "g")), catalog: catalog, by: &replica)
        #expect(document.layout(catalog: catalog).order == tabs("b", "c", "a", "d", "f", "e", "g"))
        #expect(replica.sequence - sequence == 2)
        let written = document.entries.filter { $0.dot.sequence > sequence }.map(\.key)
        #expect(written.count == 2)
        #expect(document.entries.count <= 3)
    }

    /// Tabs put again and again at an open end of one gap: the same tab leaving the gap between a
    /// and b and coming back, and two tabs alternately put first after a. A thousand of each keep
    /// every key within the cap and never re-space.
    @Test(arguments: ["same tab", "alternating tabs"])
    func aThousandMovesIntoOneGapKeepKeysWithinTheCapAndWriteNoRespace(pattern: String) throws {
        let catalog = lettersCatalog(5)
        var replica = simulatedReplica(1)
        var document = TabBarDocument()
        var longest = 0
        for step in 0..<1_000 {
            let sequence = replica.sequence
            let edit: TabBarEdit =
                pattern == "same tab"
                ? .move(tab("d"), to: step % 2 == 0 ? 1 : 4)
                : .move(step % 2 == 0 ? tab("c") : tab("b"), to: 1)
            let before = document.layout(catalog: catalog).order
            try document.apply(edit, catalog: catalog, by: &replica)
            // One move writes one entry, or nothing when the tab is already there: never a re-space.
            #expect(replica.sequence - sequence <= 1, "step \(step)")
            if before == document.layout(catalog: catalog).order { #expect(replica.sequence == sequence) }
            longest = max(longest, longestKey(in: document))
        }
        #expect(longest <= TabPlace.maxKeyLength)
        #expect(document.problems().isEmpty)
        #expect(try TabBarDocument(decoding: document.encoded()) == document)
        print("\(pattern): longest key after 1,000 moves into one gap: \(longest) bytes")
    }

    /// The worst pattern for fractional keys: three keyed tabs in one gap, and each move takes an
    /// outer one, alternately the left and the right, into the middle, so every new key lies between
    /// the two newest and the room left halves each time. Docs/Merging.md promises at most a bit of key
    /// per such squeeze: a thousand cost at most 125 bytes (plus one for rounding) past the first
    /// key, with one entry written per move and no re-space.
    /// The gap follows `anchor`; its id sets the gap's tag, the first byte after every key's middle.
    @Test(arguments: ["a", "home", "news"])
    func aThousandSqueezesBetweenTwoKeyedNeighboursCostAtMostABitEach(anchor: String) throws {
        let catalog = try Catalog([tab(anchor)] + tabs("b", "c", "d", "e"))
        var replica = simulatedReplica(1)
        // d, e, then b into the gap after the anchor: three keyed tabs side by side.
        var document = try applying(
            [.move(tab("d"), to: 1), .move(tab("e"), to: 2), .move(tab("b"), to: 2)], to: TabBarDocument(),
            catalog: catalog, by: &replica)
        #expect(document.layout(catalog: catalog).order == [tab(anchor)] + tabs("d", "b", "e", "c"))
        let firstKey = longestKey(in: document)
        let squeezes = 1_000
        var longest = firstKey
        for step in 0..<squeezes {
            let order = document.layout(catalog: catalog).order
            let (moving, left, right) =
                step % 2 == 0 ? (order[1], order[2], order[3]) : (order[3], order[1], order[2])
            let sequence = replica.sequence
            try document.apply(.move(moving, to: 2), catalog: catalog, by: &replica)
            let after = document.layout(catalog: catalog).order
            #expect(after == [tab(anchor), left, moving, right, tab("c")], "step \(step)")
            // Exactly the moved tab's entry, never a re-space of the gap.
            #expect(replica.sequence - sequence == 1, "step \(step)")
            longest = max(longest, longestKey(in: document))
        }
        let promised = firstKey + (squeezes + 7) / 8 + 1
        #expect(longest <= promised, "\(longest) bytes after \(squeezes) squeezes, promised \(promised)")
        #expect(longest <= TabPlace.maxKeyLength)
        #expect(longest > firstKey, "the squeezes never shared a gap")
        #expect(document.problems().isEmpty)
        #expect(try TabBarDocument(decoding: document.encoded()) == document)
        print(
            "squeezes after \(anchor): longest key after \(squeezes) squeezes: \(longest) bytes (first \(firstKey))"
        )
    }

    /// The longest position key in `document`.
    private func longestKey(in document: TabBarDocument) -> Int {
        document.entries.reduce(0) { longest, entry in
            if case .place(let place) = entry.value { return max(longest, place.key.count) }
            return longest
        }
    }

    @Test func invalidEditsThrowAndChangeNothing() throws {
        let catalog = try Catalog(tabs: [
            Catalog.Tab(tab("home"), placement: .fixed),
            Catalog.Tab(tab("a")),
            Catalog.Tab(tab("b"), placement: .movable),
            Catalog.Tab(tab("c"), hidden: true),
        ])
        var replica = simulatedReplica(1)
        var document = try applying(
            [.setBadge(tab("a"), 5)], to: TabBarDocument(), catalog: catalog, by: &replica)
        let before = document
        let replicaBefore = replica
        let cases: [(TabBarEdit, EditError.Reason)] = [
            (.move(tab("zzz"), to: 0), .unknownTab(tab("zzz"))),
            (.move(tab("a"), to: 3), .indexOutOfRange(3, count: 3)),
            (.move(tab("a"), to: -1), .indexOutOfRange(-1, count: 3)),
            (.move(tab("c"), to: 0), .tabNotShown(tab("c"))),
            (.move(tab("home"), to: 1), .fixedTab(tab("home"))),
            (.reorder(tabs("home", "a")), .notAPermutation),
            (.reorder(tabs("home", "a", "a")), .duplicateTab(tab("a"))),
            (.reorder(tabs("a", "home", "b")), .fixedTab(tab("home"))),
            (.setHidden(tab("b"), true), .notHideable(tab("b"))),
            (.setHidden(tab("home"), true), .fixedTab(tab("home"))),
            (.setCustomizable(tabs("home")), .fixedTab(tab("home"))),
            (.setCustomizable(tabs("c")), .tabNotShown(tab("c"))),
            (.select(.tab(tab("c"))), .tabNotShown(tab("c"))),
            (.setBadge(tab("a"), -1), .negativeBadge(-1)),
            (.setBadge(tab("a"), Int.max), .badgeOutOfRange(Int.max)),
            (.addToBadge(tab("a"), Int.min), .badgeOutOfRange(Int.min)),
            (.setBadgeText(tab("a"), String(repeating: "é", count: 33)), .badgeTextTooLong(66)),
            (.addToBadge(tab("nope"), 1), .unknownTab(tab("nope"))),
        ]
        for (edit, reason) in cases {
            #expect(throws: EditError(reason)) { try document.apply(edit, catalog: catalog, by: &replica) }
            #expect(document == before, "\(edit) changed the document")
            #expect(replica == replicaBefore, "\(edit) used a dot")
        }
        #expect(EditError(.badgeTextTooLong(66)).description.contains("66"))
    }

    @Test func setCustomizableWritesOnlyChangedFlags() throws {
        let catalog = lettersCatalog(4)
        var replica = simulatedReplica(1)
        var document = TabBarDocument()
        try document.apply(.setCustomizable(tabs("a", "c")), catalog: catalog, by: &replica)
        #expect(document.entries.map(\.key) == [.customizable(tab("b")), .customizable(tab("d"))])
        #expect(document.layout(catalog: catalog).customizable == tabs("a", "c"))
    }

    @Test func catalogRejectsDuplicatesCyclesAndTooManyTabs() throws {
        #expect(throws: CatalogError.duplicateTab(tab("a"))) { try Catalog(tabs("a", "b", "a")) }
        #expect(throws: CatalogError.self) {
            try Catalog(tabs: [Catalog.Tab(tab("a"))], renames: [tab("x"): tab("y"), tab("y"): tab("x")])
        }
        #expect(throws: CatalogError.renamedTabStillListed(tab("a"))) {
            try Catalog(tabs: [Catalog.Tab(tab("a"))], renames: [tab("a"): tab("b")])
        }
        let many = (0..<257).map { tab("t\($0)") }
        #expect(throws: CatalogError.tooManyTabs(257)) { try Catalog(many) }
        let catalog = try Catalog(
            tabs: [
                Catalog.Tab(tab("a"), customizable: false, placement: .fixed),
                Catalog.Tab(tab("b"), hidden: true),
            ],
            renames: [tab("old"): tab("b")])
        #expect(try Catalog(decoding: catalog.encoded()) == catalog)
    }
}
