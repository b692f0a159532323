import TabKeepTestSupport
import Testing

@testable import TabKeep

/// Random documents (fixed seeds) through the encoding: canonical round trips, every truncation
/// refused, random mutations refused or decoded to valid documents.
@Suite("Encoding, random documents")
struct EncodingPropertyTests {
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
        for (index, document) in Self.sampleDocuments(count: 200, seed: 0xE4C0DE).enumerated() {
            let bytes = document.encoded()
            let decoded = try TabBarDocument(decoding: bytes)
            #expect(
                decoded == document,
                "document \(index), \(replayLine(seed: 0xE4C0DE, filter: "EncodingPropertyTests"))")
            #expect(
                decoded.encoded() == bytes,
                "document \(index), \(replayLine(seed: 0xE4C0DE, filter: "EncodingPropertyTests"))")
            // Entries in any order make the same document and the same bytes.
            let shuffled = try TabBarDocument(entries: document.entries.reversed())
            #expect(
                shuffled.encoded() == bytes,
                "document \(index), \(replayLine(seed: 0xE4C0DE, filter: "EncodingPropertyTests"))")
            // Non-contiguous input decodes too.
            #expect(try TabBarDocument(decoding: AnyCollection(bytes)) == document)
        }
    }

    @Test func everyTruncationThrows() {
        for document in Self.sampleDocuments(count: 20, seed: 0x7A11) {
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
        let documents = Self.sampleDocuments(count: 20, seed: 0xF022)
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
                #expect(
                    decoded.problems().isEmpty,
                    "round \(round), \(replayLine(seed: 0xBADB17E5, filter: "EncodingPropertyTests"))")
                #expect(
                    try TabBarDocument(decoding: decoded.encoded()) == decoded,
                    "round \(round), \(replayLine(seed: 0xBADB17E5, filter: "EncodingPropertyTests"))")
                _ = decoded.layout(catalog: randomCatalog)
                _ = decoded.merging(documents[0])
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
        // Some mutations (e.g. a changed stamp) leave valid documents: both paths are exercised.
        #expect(decodedCount > 0)
    }
}
