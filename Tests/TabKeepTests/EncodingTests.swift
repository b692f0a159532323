import TabKeepTestSupport
import Testing

@testable import TabKeep

@Suite("Encoding")
struct EncodingTests {
    @Test func decodingRejectsOutOfRangeAndNonCanonicalValues() throws {
        var replica = simulatedReplica(1)
        let catalog = lettersCatalog(2)
        let document = try applying(
            [.setBadge(tab("a"), 3)], to: TabBarDocument(), catalog: catalog, by: &replica)
        let bytes = document.encoded()
        #expect(throws: DocumentDecodingError.self) { try TabBarDocument(decoding: [2] + bytes.dropFirst()) }
        // A hand-made document with an absurd badge count is refused.
        var entry = document.entries[0]
        entry.value = .badgeReset(count: 1 << 50, seen: [:])
        #expect(throws: DocumentDecodingError.self) { try TabBarDocument(entries: [entry]) }
        entry.value = .flag(true)
        #expect(throws: DocumentDecodingError.self) { try TabBarDocument(entries: [entry]) }
        // Duplicate keys are refused.
        #expect(throws: DocumentDecodingError.self) {
            try TabBarDocument(entries: [document.entries[0], document.entries[0]])
        }
        // Overlong varints are refused: count 1 written as 0x81 0x00.
        #expect(throws: DocumentDecodingError.self) { try TabBarDocument(decoding: [1, 0x81, 0x00]) }
        #expect(try TabBarDocument(decoding: [1, 0]) == TabBarDocument())
    }

    @Test func catalogDecodingRejectsEveryTruncation() throws {
        let catalog = try Catalog(
            tabs: [Catalog.Tab(tab("home"), placement: .fixed), Catalog.Tab(tab("b"), placement: .optional)],
            renames: [tab("old"): tab("b")])
        let bytes = catalog.encoded()
        for length in 0..<bytes.count {
            #expect(throws: DocumentDecodingError.self) { try Catalog(decoding: bytes[..<length]) }
        }
        #expect(throws: DocumentDecodingError.self) { try Catalog(decoding: bytes + [0]) }
    }

    /// A dot names one write of one entry: a document whose two entries hold one dot is refused
    /// where documents come in from outside (a dump's line; a sync message checks it too).
    @Test func aDocumentWhoseTwoEntriesHoldOneDotIsRefused() throws {
        var document = TabBarDocument()
        var replica = Replica(id: ReplicaID(rawValue: 9))
        try document.apply(.setHidden(tab("a"), true), catalog: letterTabs, by: &replica)
        try document.apply(.setHidden(tab("b"), true), catalog: letterTabs, by: &replica)
        var entries = document.entries
        #expect(throws: Never.self) { try TabBarDocument(entries: entries) }
        entries[1].dot = entries[0].dot
        let error = try #require(throws: DocumentDecodingError.self) { try TabBarDocument(entries: entries) }
        #expect(error.reason.contains("held by two entries"), "\(error)")
    }
}
