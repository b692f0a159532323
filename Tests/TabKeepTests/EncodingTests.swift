import TabKeepTestSupport
import Testing

@testable import TabKeep

@Suite("Encoding")
struct EncodingTests {
    static func sampleDocuments(count: Int, seed: UInt64) -> [TabBarDocument] {
        var rng = SplitMix64(seed: seed)
        var result: [TabBarDocument] = []
        while result.count < count {
            let documents = randomReplicaDocuments(&rng, steps: 25)
            result.append(documents.reduce(TabBarDocument()) { $0.merging($1) })
        }
        return result
    }

    @Test func randomDocumentsRoundTripCanonically() throws {
        for (index, document) in EncodingTests.sampleDocuments(count: 200, seed: 0xE4C0DE).enumerated() {
            let bytes = document.encoded()
            let decoded = try TabBarDocument(decoding: bytes)
            #expect(decoded == document, "document \(index)")
            #expect(decoded.encoded() == bytes, "document \(index)")
            // Entries in any order make the same document and the same bytes.
            let shuffled = try TabBarDocument(entries: document.entries.reversed())
            #expect(shuffled.encoded() == bytes, "document \(index)")
            // Non-contiguous input decodes too.
            #expect(try TabBarDocument(decoding: AnyCollection(bytes)) == document)
        }
    }

    @Test func everyTruncationThrows() {
        for document in EncodingTests.sampleDocuments(count: 20, seed: 0x7A11) {
            let bytes = document.encoded()
            for length in 0..<bytes.count {
                #expect(throws: DocumentDecodingError.self) { try TabBarDocument(decoding: bytes[..<length]) }
            }
            var trailing = bytes
            trailing.append(0)
            #expect(throws: DocumentDecodingError(offset: bytes.count, reason: "trailing bytes")) {
                try TabBarDocument(decoding: trailing)
            }
        }
    }

    @Test func randomMutationsThrowOrDecodeToValidDocuments() throws {
        let documents = EncodingTests.sampleDocuments(count: 20, seed: 0xF022)
        var rng = SplitMix64(seed: 0xBADB17E5)
        var decodedCount = 0
        for round in 0..<12_000 {
            var bytes = documents[round % documents.count].encoded()
            for _ in 0...(rng.next() % 3) {
                let position = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 4 {
                case 0: bytes[position] = UInt8(truncatingIfNeeded: rng.next())
                case 1: bytes[position] ^= 1 << UInt8(rng.next() % 8)
                case 2: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: position)
                default: bytes.remove(at: position)
                }
                if bytes.isEmpty { bytes = [1] }
            }
            do {
                let decoded = try TabBarDocument(decoding: bytes)
                decodedCount += 1
                #expect(decoded.problems().isEmpty, "round \(round)")
                #expect(try TabBarDocument(decoding: decoded.encoded()) == decoded, "round \(round)")
                _ = decoded.layout(catalog: randomCatalog)
                _ = decoded.merging(documents[0])
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
        // Some mutations (e.g. a changed stamp) leave valid documents: both paths are exercised.
        #expect(decodedCount > 0)
    }

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
        try document.apply(.setHidden(tab("a"), true), catalog: sevenLetterTabs, by: &replica)
        try document.apply(.setHidden(tab("b"), true), catalog: sevenLetterTabs, by: &replica)
        var entries = document.entries
        #expect(throws: Never.self) { try TabBarDocument(entries: entries) }
        entries[1].dot = entries[0].dot
        let error = try #require(throws: DocumentDecodingError.self) { try TabBarDocument(entries: entries) }
        #expect(error.reason.contains("held by two entries"), "\(error)")
    }
}
