import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepDump

/// The version 3 dump writes a document's entries straight from its stored bytes
/// (`DumpTranscoder`); its slow twin decodes the bytes into a `TabBarDocument` and writes that
/// (`DumpWriter.writeDocument(key:document:catalog:)`). Over random documents of every entry kind
/// and random mutations of their bytes, the two accept the same bytes and write the same JSON, and
/// a version 3 line reads back to the document it was written from, as a version 2 line does.
@Suite("Dump transcoder, random documents")
struct DumpTranscoderPropertyTests {
    static let filter = "DumpTranscoderPropertyTests"

    /// Tab ids that need escapes, non-ASCII ones, and plain ones.
    static let tabPool = ["a", "b", "home", "q\"uote", "back\\slash", "é", "日本", "z-\u{7F}x"].map {
        TabID(unchecked: $0)
    }
    static let texts: [String?] = [nil, "", "new", "two\nlines \u{1} \"q\" \\", "✓ done"]

    /// A random valid document: every kind of entry and value, tombstones under a clear.
    static func randomDocument(_ random: inout SplitMix64) -> TabBarDocument {
        let replicas = (0..<3).map { _ in ReplicaID(rawValue: random.next() | 1) }
        var sequences = [UInt64](repeating: 0, count: 3)
        func next(_ limit: UInt64) -> UInt64 { random.next() % limit }
        func stamped(_ key: Entry.Key, _ value: Entry.Value) -> Entry {
            let writer = Int(next(3))
            sequences[writer] += 1 + next(3)
            let stamp = next(4) == 0 ? random.next() : (1 << 50) + next(1 << 20)
            return Entry(
                key: key, value: value, stamp: Stamp(rawValue: stamp), origin: replicas[Int(next(3))],
                dot: Dot(
                    replica: replicas[writer],
                    sequence: next(8) == 0 ? (1 << 63) + next(9) : sequences[writer]))
        }
        func key(_ length: Int) -> [UInt8] {
            (0..<length).map { index in
                index == length - 1 ? UInt8(1 + next(255)) : UInt8(truncatingIfNeeded: random.next())
            }
        }
        func optionalTab() -> TabID? { next(3) == 0 ? nil : tabPool.randomElement(using: &random)! }
        var entries: [Entry] = []
        for tab in tabPool where next(2) == 0 {
            if next(2) == 0 {
                entries.append(
                    stamped(
                        .position(tab),
                        next(3) == 0
                            ? .position(key(1 + Int(next(32))))
                            : .place(
                                TabPlace(
                                    after: optionalTab(), next: optionalTab(), key: key(1 + Int(next(40)))))))
            }
            if next(2) == 0 { entries.append(stamped(.customizable(tab), .flag(next(2) == 0))) }
            if next(2) == 0 { entries.append(stamped(.hidden(tab), .flag(next(2) == 0))) }
            if next(2) == 0 {
                entries.append(stamped(.badgeText(tab), .text(texts.randomElement(using: &random)!)))
            }
            if next(2) == 0 {
                var seen: [ReplicaID: Int64] = [:]
                var sequenced: [ReplicaID: UInt64] = [:]
                let withSequences = next(2) == 0
                for replica in replicas where next(2) == 0 || (withSequences && seen.isEmpty) {
                    seen[replica] = Int64(next(2000)) - 1000
                    if withSequences { sequenced[replica] = 1 + next(1 << 40) }
                }
                entries.append(
                    stamped(
                        .badgeReset(tab),
                        .badgeReset(count: Int64(next(100)), seen: seen, sequences: sequenced)))
            }
            for replica in replicas where next(3) == 0 {
                entries.append(
                    stamped(.badgeIncrements(tab, replica), .badgeTotal(Int64(next(1 << 41)) - (1 << 40))))
            }
        }
        if next(2) == 0 {
            let selections: [Selection] = [.none, .more, .tab(tabPool.randomElement(using: &random)!)]
            entries.append(stamped(.selection, .selection(selections.randomElement(using: &random)!)))
        }
        if next(2) == 0 {
            // A clear: what its context covers is a tombstone, the rest is not.
            var context = VersionVector()
            for (index, replica) in replicas.enumerated() where next(3) != 0 {
                context[replica] = 1 + next(max(1, sequences[index] + 2))
            }
            entries = entries.map { entry in
                var entry = entry
                if context.contains(entry.dot) { entry.value = .removed }
                return entry
            }
            var marks: [BadgeMark] = []
            if next(2) == 0 {
                for tab in tabPool where next(3) == 0 {
                    for replica in replicas.sorted() where next(2) == 0 {
                        marks.append(
                            BadgeMark(
                                tab: tab, replica: replica, total: Int64(next(200)) - 100,
                                sequence: 1 + next(99)))
                    }
                }
                marks.sort()
            }
            if context.replicas.isEmpty { context[replicas[0]] = 1 }
            entries.append(stamped(.cleared, .context(context, badges: marks)))
            // The clear's own dot may fall under its context; the others must agree with it.
            entries =
                entries.dropLast().map { entry in
                    var entry = entry
                    entry.value = context.contains(entry.dot) ? .removed : entry.value
                    return entry
                } + [entries.last!]
        }
        return (try? TabBarDocument(entries: entries)) ?? TabBarDocument()
    }

    /// The slow twin's `entries` array: the decoded document's version 3 line, cut to it.
    static func slowEntries(_ document: TabBarDocument) -> [UInt8] {
        var writer = DumpWriter(version: 3)
        writer.writeDocument(
            key: DocumentKey(profile: profile("p"), bar: bar("b")), document: document, catalog: nil)
        let line = writer.takeBytes()
        let prefix = Array(#"{"type":"document","profile":"p","bar":"b","entries":"#.utf8)
        #expect(Array(line.prefix(prefix.count)) == prefix)
        return Array(line[prefix.count..<(line.count - 2)])
    }

    /// What the fast path makes of `bytes`: its `entries` array, or nil when it refuses them.
    static func fastEntries(_ bytes: [UInt8]) -> [UInt8]? {
        var transcoder = DumpTranscoder()
        var output: [UInt8] = Array("x".utf8)
        let accepted = bytes.withUnsafeBufferPointer { transcoder.appendEntries(of: $0, to: &output) }
        if !accepted {
            #expect(output == Array("x".utf8), "a refusal leaves the output as it was")
            return nil
        }
        return Array(output.dropFirst())
    }

    @Test func theTranscoderWritesWhatTheDecodeAndEncodeWriterWrites() throws {
        let seed: UInt64 = 0x7D3
        var random = SplitMix64(seed: seed)
        var kinds: Set<String> = []
        for index in 0..<600 {
            let document = Self.randomDocument(&random)
            let bytes = document.encoded()
            let slow = Self.slowEntries(document)
            #expect(
                Self.fastEntries(bytes) == slow,
                "document \(index): \(String(decoding: slow, as: UTF8.self)), \(replayLine(seed: seed, filter: Self.filter))"
            )
            for entry in document.entries {
                kinds.insert(
                    "\(DumpEntryKind.name(of: entry.key))\(entry.value == .removed ? "-removed" : "")")
                if case .place = entry.value { kinds.insert("place") }
                if case .context(_, let badges) = entry.value, !badges.isEmpty {
                    kinds.insert("clear-badges")
                }
                if case .badgeReset(_, _, let sequences) = entry.value, !sequences.isEmpty {
                    kinds.insert("reset-sequences")
                }
            }
            // The whole line too, through the writer's fast entry point.
            var fast = DumpWriter(version: 3)
            try bytes.withUnsafeBufferPointer {
                try fast.writeDocument(key: DocumentKey(profile: profile("p"), bar: bar("b")), encoded: $0)
            }
            var slowWriter = DumpWriter(version: 3)
            slowWriter.writeDocument(
                key: DocumentKey(profile: profile("p"), bar: bar("b")), document: document, catalog: nil)
            #expect(fast.takeBytes() == slowWriter.takeBytes(), "document \(index)")
        }
        // Every kind and form was generated, so each was compared.
        #expect(kinds.count >= 17, "kinds seen: \(kinds.sorted())")
    }

    /// The output's integers, replica ids and dots, written digit pairs at a time in place, are
    /// the bytes of the values' own descriptions, at every length and across the buffer's growth.
    @Test func numbersAndIdsAreWrittenAsTheirDescriptions() {
        var random = SplitMix64(seed: 0x7D6)
        var values: [UInt64] = [0, 1, 9, 10, 11, 99, 100, 101, UInt64.max, UInt64.max - 1, 1 << 63]
        var power: UInt64 = 1
        for _ in 0..<19 {
            power *= 10
            values += [power - 1, power, power + 1]
        }
        values += (0..<3_000).map { _ in random.next() >> (random.next() % 64) }
        var output = DumpJSONOutput(capacity: 16)
        var expected = ""
        for value in values {
            output.integer(value)
            output.integer(Int64(bitPattern: value))
            output.replica(ReplicaID(rawValue: value))
            output.dot(Dot(replica: ReplicaID(rawValue: ~value), sequence: value))
            expected += "\(value)\(Int64(bitPattern: value))\"\(ReplicaID(rawValue: value))\""
            expected += "\"\(Dot(replica: ReplicaID(rawValue: ~value), sequence: value))\""
        }
        output.integer(Int64.min)
        output.integer(Int8(-7))
        expected += "\(Int64.min)-7"
        #expect(String(decoding: output.bytes, as: UTF8.self) == expected)
    }

    /// A writer keeps its lines in a buffer its copies share until one writes: each copy must
    /// go on as if it were alone, through both document entry points, growth and `takeBytes()`.
    @Test func aCopiedWriterWritesOnWithoutChangingTheOriginal() throws {
        var random = SplitMix64(seed: 0x7D5)
        // Documents of different entries, so that lines written over one another show.
        var documents: [TabBarDocument] = []
        while documents.count < 40 {
            let document = Self.randomDocument(&random)
            if !document.entries.isEmpty && !documents.contains(document) { documents.append(document) }
        }
        let key = DocumentKey(profile: profile("p"), bar: bar("b"))
        /// The bytes of a fresh writer given `documents` by index, odd ones from their bytes.
        func alone(_ indices: [Int]) throws -> [UInt8] {
            var writer = DumpWriter(version: 3)
            for index in indices { try write(index, &writer) }
            return writer.takeBytes()
        }
        func write(_ index: Int, _ writer: inout DumpWriter) throws {
            if index % 2 == 0 {
                writer.writeDocument(key: key, document: documents[index], catalog: nil)
            } else {
                try documents[index].encoded().withUnsafeBufferPointer {
                    try writer.writeDocument(key: key, encoded: $0)
                }
            }
        }
        // Both write into the room the shared buffer has left (lines taken keep the room).
        var original = DumpWriter(version: 3)
        for index in 0..<40 { try write(index, &original) }
        #expect(try original.takeBytes() == alone(Array(0..<40)))
        try write(0, &original)
        var copy = original
        try write(1, &copy)
        try write(2, &original)
        #expect(try copy.takeBytes() == alone([0, 1]))
        #expect(try original.takeBytes() == alone([0, 2]))
        // Enough lines that one outgrows the buffer, then a copy of the other.
        for index in 0..<3 { try write(index, &original) }
        copy = original
        for index in 3..<40 { try write(index, &copy) }
        var second = original
        for index in [39, 4] { try write(index, &original) }
        try write(6, &second)
        #expect(try copy.takeBytes() == alone(Array(0..<40)))
        #expect(try original.takeBytes() == alone([0, 1, 2, 39, 4]))
        #expect(try second.takeBytes() == alone([0, 1, 2, 6]))
        try write(5, &copy)
        #expect(try copy.takeBytes() == alone([5]))
        #expect(original.pendingCount == 0 && second.pendingCount == 0)
    }

    @Test func theTranscoderRefusesExactlyWhatTheDecoderRefuses() {
        let seed: UInt64 = 0x7D4
        var random = SplitMix64(seed: seed)
        let documents = (0..<40).map { _ in Self.randomDocument(&random) }.filter { !$0.entries.isEmpty }
        var accepted = 0
        var refused = 0
        for round in 0..<20_000 {
            var bytes = documents[round % documents.count].encoded()
            for _ in 0...(random.next() % 3) {
                let position = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 5 {
                case 0: bytes[position] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes[position] ^= 1 << UInt8(random.next() % 8)
                case 2: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
                case 3: bytes.remove(at: position)
                default: bytes[position] = UInt8(random.next() % 3)  // tags, flags, codes
                }
                if bytes.isEmpty { bytes = [1] }
            }
            let decoded = try? TabBarDocument(decoding: bytes)
            let fast = Self.fastEntries(bytes)
            if let decoded {
                accepted += 1
                #expect(
                    fast == Self.slowEntries(decoded),
                    "round \(round): \(bytes), \(replayLine(seed: seed, filter: Self.filter))")
            } else {
                refused += 1
                #expect(
                    fast == nil,
                    "round \(round): the decoder refuses \(bytes) but the transcoder wrote \(String(decoding: fast ?? [], as: UTF8.self)), \(replayLine(seed: seed, filter: Self.filter))"
                )
            }
        }
        #expect(accepted > 100 && refused > 100, "accepted \(accepted), refused \(refused)")
    }

    /// A dump of `documents` written in `version`, read back.
    func readBack(_ documents: [TabBarDocument], version: Int, directory: TemporaryDirectory) throws
        -> [DumpRecord]
    {
        var writer = DumpWriter(version: version)
        writer.writeHeader(
            DumpHeader(schema: 2, replica: ReplicaID(rawValue: 9), time: DumpHeader.isoTime(milliseconds: 0)))
        writer.writeCatalog(bar: bar("b"), catalog: lettersCatalog())
        for (index, document) in documents.enumerated() {
            writer.writeDocument(
                key: DocumentKey(profile: profile("p\(1000 + index)"), bar: bar("b")), document: document,
                catalog: lettersCatalog())
        }
        writer.writeTrailer()
        let path = directory.sub("v\(version).tkdump")
        try Data(writer.takeBytes()).write(to: URL(fileURLWithPath: path))
        let reader = try DumpReader(path: path)
        #expect(reader.version == version)
        var records: [DumpRecord] = []
        while let record = try reader.next() { records.append(record) }
        return records
    }

    @Test func versionThreeLinesReadBackAsVersionTwoLinesDo() throws {
        let seed: UInt64 = 0x7D5
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let documents = (0..<200).map { _ in Self.randomDocument(&random) }
        let three = try readBack(documents, version: 3, directory: directory)
        let two = try readBack(documents, version: 2, directory: directory)
        #expect(three == two, "\(replayLine(seed: seed, filter: Self.filter))")
        #expect(three.count == documents.count + 1)
        for (record, document) in zip(three.dropFirst(), documents) {
            guard case .document(_, let read) = record else {
                Issue.record("not a document: \(record)")
                continue
            }
            #expect(read == document, "\(replayLine(seed: seed, filter: Self.filter))")
        }
    }
}
