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

    /// The binary formats' primitives, byte for byte as the formats specify them (LEB128,
    /// big-endian fixed widths, length-prefixed UTF-8), across the writer's growth past its first
    /// room, and the three ways to take its bytes.
    @Test func theByteWriterWritesEachPrimitiveAsTheFormatsSay() {
        /// Unsigned LEB128 as the formats define it: seven bits a byte, low first, high bit = more.
        func leb128(_ value: UInt64) -> [UInt8] {
            var bytes: [UInt8] = []
            var rest = value
            repeat {
                let low = UInt8(rest & 0x7F)
                rest >>= 7
                bytes.append(rest == 0 ? low : low | 0x80)
            } while rest != 0
            return bytes
        }
        var expected: [UInt8] = []
        var writer = ByteWriter()
        for value: UInt64 in [0, 1, 127, 128, 300, 16_383, 16_384, 1 << 35, UInt64.max] {
            writer.varint(value)
            expected += leb128(value)
        }
        #expect(expected.suffix(10) == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        #expect(writer.bytes == expected)
        writer.signed(-1)
        writer.signed(1)
        expected += [1, 2]
        writer.fixed64(0x0102_0304_0506_0708)
        writer.fixed32(0xA1B2_C3D4)
        expected += [1, 2, 3, 4, 5, 6, 7, 8, 0xA1, 0xB2, 0xC3, 0xD4]
        // A small string (stored inline), a long one and one of several-byte characters.
        let long = String(repeating: "tab-", count: 40)
        for text in ["home", long, "Zürich ☕︎"] {
            writer.string(text)
            expected += leb128(UInt64(text.utf8.count)) + Array(text.utf8)
        }
        writer.string("")
        writer.data([9, 8, 7])
        writer.data([])
        writer.byte(0xFF)
        expected += [0, 3, 9, 8, 7, 0, 0xFF]
        #expect(writer.count == expected.count)
        #expect(writer.bytes == expected)
        #expect(writer.withWritten { Array($0) } == expected)
        #expect(writer.finish() == expected)
        // Setting the bytes starts over from them.
        var restarted = ByteWriter()
        restarted.reserveCapacity(1_000)
        restarted.bytes = [5, 6]
        restarted.varint(200)
        #expect(restarted.bytes == [5, 6, 0xC8, 0x01])
        #expect(ByteWriter().finish() == [])
    }
}
