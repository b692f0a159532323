import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepDump

/// A version 3 document line is first tried on a fast path that scans its bytes straight into
/// entries (`DumpDocumentLineScanner`); its slow twin tokenizes the line and reads each entry
/// through `DumpEntryReader`. Over random documents of every entry kind and random mutations of
/// real lines (each with the trailer's CRC-32 made right, so a mutation that is still a valid
/// line is read, not refused by the checksum), a dump reads to the same records and ends with the
/// same refusal, word for word, with the fast path on and off — and the fast path reads most lines.
@Suite("Dump line scanner, fast and slow")
struct DumpLineScannerDifferentialPropertyTests {
    let reader = DumpReaderTests()
    static let filter = "DumpLineScannerDifferentialPropertyTests"

    /// Reads `lines` both ways; records an issue when they differ. Returns the lines scanned.
    func compare(_ lines: [[UInt8]], name: String, _ what: @autoclosure () -> String) throws -> Int {
        var scanned = 0
        var unused = 0
        let fast = try reader.outcome(lines, name: name + "-fast", scanning: true, scanned: &scanned)
        let slow = try reader.outcome(lines, name: name + "-slow", scanning: false, scanned: &unused)
        #expect(unused == 0)
        #expect(fast == slow, "\(what())\nfast: \(fast.last.map(String.init(describing:)) ?? "")")
        return scanned
    }

    /// The indices of a dump's document lines.
    static func documentLines(_ lines: [[UInt8]]) -> [Int] {
        lines.indices.filter { lines[$0].starts(with: Array(#"{"type":"document""#.utf8)) }
    }

    @Test func aRealDumpReadsTheSameBothWaysAndMostLinesTakeTheFastPath() throws {
        let lines = try reader.dumpLines(version: 3)
        let scanned = try compare(lines, name: "real", "the real dump")
        let documents = Self.documentLines(lines).count
        // The lines with an escape (a badge text here) take the slow path; the rest the fast one.
        #expect(scanned > 0 && scanned < documents, "\(scanned) of \(documents)")
    }

    @Test(arguments: [UInt64(0x5CA1), 0x5CA2])
    func randomDocumentsReadTheSameBothWays(seed: UInt64) throws {
        let lines = try reader.dumpLines(version: 3)
        let slots = Self.documentLines(lines)
        var random = SplitMix64(seed: seed)
        for round in 0..<150 {
            let index = slots[Int(random.next() % UInt64(slots.count))]
            let key = try keyOfLine(lines[index])
            var document = DumpTranscoderPropertyTests.randomDocument(&random)
            // Half the rounds without a first-format position key: the forms the fast path takes.
            if round % 2 == 0 { document = try Self.withoutFirstFormatPositions(document) }
            let line = Self.line(key, document)
            // A tab id or a text that needs an escape sends the line to the slow path.
            let escapes = line.contains(UInt8(ascii: "\\"))
            if round % 2 == 0 && !escapes {
                let read = line.withUnsafeBufferPointer { DumpDocumentLineScanner.document($0) }
                #expect(read?.key == key, "the fast path takes \(String(decoding: line, as: UTF8.self))")
                #expect(try read.map { try TabBarDocument(entries: $0.entries) } == document)
            }
            _ = try compare(
                reader.replacing(lines, at: index, with: line), name: "r\(round)",
                "seed \(seed) round \(round): \(String(decoding: line, as: UTF8.self))")
        }
    }

    @Test(arguments: [UInt64(0xF0A5), 0xF0A6])
    func mutatedLinesReadTheSameBothWays(seed: UInt64) throws {
        let lines = try reader.dumpLines(version: 3)
        let slots = Self.documentLines(lines)
        var random = SplitMix64(seed: seed)
        for round in 0..<400 {
            let index = slots[Int(random.next() % UInt64(slots.count))]
            let line = Self.mutated(lines[index], &random)
            _ = try compare(
                reader.replacing(lines, at: index, with: line), name: "m\(round)",
                "seed \(seed) round \(round): \(String(decoding: line, as: UTF8.self))")
        }
    }

    /// A byte that may end a string (a backslash starting a valid escape, a control character),
    /// or one that may not (DEL, a space, a two-byte character), at every offset of a badge text
    /// the fast path reads: its eight-bytes-at-a-time scan stops where the slow path does, at
    /// every alignment.
    @Test func stringStopsAtEveryAlignmentReadTheSameBothWays() throws {
        let lines = try reader.dumpLines(version: 3)
        let index = Self.documentLines(lines)[0]
        let replica = ReplicaID(rawValue: 0xABCD_EF01_2345_6789)
        let text = "a plain badge text, long enough for several words of eight"
        let document = try TabBarDocument(entries: [
            Entry(
                key: .badgeText(tab("d")), value: .text(text), stamp: Stamp(rawValue: 1 << 50),
                origin: replica,
                dot: Dot(replica: replica, sequence: 1))
        ])
        var writer = DumpWriter(version: 3)
        writer.writeDocument(key: try keyOfLine(lines[index]), document: document, catalog: nil)
        let line = Array(writer.takeBytes().dropLast())
        #expect(line.withUnsafeBufferPointer { DumpDocumentLineScanner.document($0) } != nil)
        let needle = Array(text.utf8)
        let start = try #require(
            line.indices.first { line[$0...].starts(with: needle) }, "the text is in the line")
        let inserts: [[UInt8]] = [
            Array(#"\n"#.utf8), Array(#"\\"#.utf8), [0x01], [0x1F], [0x7F], [0x20], [0xC3, 0xA9],
        ]
        for at in start...(start + needle.count) {
            for insert in inserts {
                var mutated = line
                mutated.insert(contentsOf: insert, at: at)
                _ = try compare(
                    reader.replacing(lines, at: index, with: mutated), name: "s\(at)-\(insert[0])",
                    "\(insert) at \(at): \(String(decoding: mutated, as: UTF8.self))")
            }
        }
        // With DEL, a space or a two-byte character the text is still one the fast path reads.
        var spaced = line
        spaced.insert(0x7F, at: start + 5)
        #expect(spaced.withUnsafeBufferPointer { DumpDocumentLineScanner.document($0) } != nil)
    }

    /// Spellings next to the writer's that the fast path must leave to the slow one (which
    /// accepts some and refuses others), and values at the edges of what it takes.
    @Test func editedSpellingsReadTheSameBothWays() throws {
        let lines = try reader.dumpLines(version: 3)
        let slots = Self.documentLines(lines)
        let edits: [(String, String)] = [
            (#"["position","#, #"[ "position","#), (#""entries":["#, #""entries": ["#),
            (#"{"type":"document","#, #"{"type" :"document","#), (#""bar":"#, #""bar":"x","bar":"#),
            (#""profile":"user"#, #""profile":"\u0075ser"#), (#""after":null"#, #""after":"g""#),
            (#""key":"8"#, #""key":"0008"#), (#""key":""#, #""key":"F"#), (#","true"#, #","True"#),
            (#"true]"#, #"true ]"#), (#"false]"#, #"0]"#), (#""more"]"#, #""More"]"#),
            (#""more"]"#, #"{"tab":"b"}]"#), (#"{"tab":"b"}]"#, #"{"tab":"b","x":1}]"#),
            (#"null]"#, #""\u00e9"]"#), (#"null]"#, #""é"]"#), (#"null]"#, #""\n"]"#),
            (#"{"count":"#, #"{"count": "#), (#","seen":{"#, #","seen":{"ffffffffffffffff":1,"#),
            (#","seen":{}"#, #","seen":{},"sequences":{}"#),
            (#""seen":{"#, #""seen":{"0000000000000001":-0,"#),
        ]
        // Regular-expression edits: a replica repeated in a vector, a badge reset's members
        // reordered, a zero in a clear's context.
        let rewrites: [(String, String)] = [
            (#""seen":\{"([0-9a-f]{16})":"#, #""seen":{"$1":7,"$1":"#),
            (#"\{"count":(-?[0-9]+),"seen":(\{[^}]*\})"#, #"{"seen":$2,"count":$1"#),
            (#""cleared",([0-9]+,"[0-9a-f]{16}","[0-9a-f:]+"),\{"#, #""cleared",$1,{"0000000000000002":0,"#),
        ]
        let numbers = [
            "0", "01", "-0", "-1", "1.0", "1e3", "18446744073709551615", "18446744073709551616",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        ]
        // A line the fast path takes whole: a flag, a reset, a total, a clear.
        let replica = ReplicaID(rawValue: 0xABCD_EF01_2345_6789)
        let other = ReplicaID(rawValue: 0x0123_4567_89AB_CDEF)
        let fastDocument = try TabBarDocument(entries: [
            Entry(
                key: .customizable(tab("a")), value: .flag(true), stamp: Stamp(rawValue: 1 << 50),
                origin: replica,
                dot: Dot(replica: replica, sequence: 1)),
            Entry(
                key: .badgeReset(tab("b")), value: .badgeReset(count: 3, seen: [other: 2], sequences: [:]),
                stamp: Stamp(rawValue: 1 << 50 + 2), origin: replica, dot: Dot(replica: replica, sequence: 3)),
            Entry(
                key: .badgeIncrements(tab("c"), replica), value: .badgeTotal(5),
                stamp: Stamp(rawValue: 1 << 50 + 1),
                origin: replica, dot: Dot(replica: replica, sequence: 2)),
            Entry(
                key: .cleared, value: .context(VersionVector([other: 4]), badges: []),
                stamp: Stamp(rawValue: 1 << 49), origin: other, dot: Dot(replica: other, sequence: 4)),
        ])
        var writer = DumpWriter(version: 3)
        writer.writeDocument(key: try keyOfLine(lines[slots[0]]), document: fastDocument, catalog: nil)
        let fastLine = Array(writer.takeBytes().dropLast())
        #expect(fastLine.withUnsafeBufferPointer { DumpDocumentLineScanner.document($0) } != nil)
        var variants: [(index: Int, line: [UInt8])] = []
        for index in slots + [-1] {
            let text = String(decoding: index < 0 ? fastLine : lines[index], as: UTF8.self)
            for (pattern, template) in rewrites {
                let expression = try NSRegularExpression(pattern: pattern)
                let whole = NSRange(text.startIndex..., in: text)
                if expression.firstMatch(in: text, range: whole) != nil {
                    let edited = expression.stringByReplacingMatches(
                        in: text, range: whole, withTemplate: template)
                    variants.append((max(index, slots[0]), Array(edited.utf8)))
                }
            }
            for (old, new) in edits where text.contains(old) {
                variants.append(
                    (max(index, slots[0]), Array(text.replacingOccurrences(of: old, with: new).utf8)))
            }
            // The first and last numbers of the line (stamps, badge totals) spelled as each of `numbers`.
            let pattern = try NSRegularExpression(pattern: #"(?<=[,\[])-?[0-9]+(?=[,\]])"#)
            let whole = NSRange(text.startIndex..., in: text)
            let matches = pattern.matches(in: text, range: whole)
            for match in matches.prefix(2) + matches.suffix(2) {
                for number in numbers {
                    let edited = (text as NSString).replacingCharacters(in: match.range, with: number)
                    variants.append((max(index, slots[0]), Array(edited.utf8)))
                }
            }
        }
        #expect(variants.count > 100, "\(variants.count)")
        for (round, variant) in variants.enumerated() {
            _ = try compare(
                reader.replacing(lines, at: variant.index, with: variant.line), name: "e\(round)",
                "line \(variant.index + 1): \(String(decoding: variant.line, as: UTF8.self))")
        }
    }

    /// `document` without its entries holding a first-format position key.
    static func withoutFirstFormatPositions(_ document: TabBarDocument) throws -> TabBarDocument {
        try TabBarDocument(
            entries: document.entries.filter {
                if case .position = $0.value { return false }
                return true
            })
    }

    /// The version 3 line of `document` under `key`, without its newline.
    static func line(_ key: DocumentKey, _ document: TabBarDocument) -> [UInt8] {
        var writer = DumpWriter(version: 3)
        writer.writeDocument(key: key, document: document, catalog: nil)
        return Array(writer.takeBytes().dropLast())
    }

    /// `line` with one or two random edits: a byte replaced, removed or inserted from an alphabet of
    /// JSON's punctuation, digits, letters and odd bytes, or a run of it repeated.
    static func mutated(_ line: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        let alphabet = Array("{}[]:,\"\\0123456789-.eEtrufalsn xyzabcdef".utf8) + [0xC3, 0xA9, 0x00, 0x7F]
        var line = line
        for _ in 0...Int(random.next() % 2) {
            let at = Int(random.next() % UInt64(line.count))
            switch random.next() % 5 {
            case 0, 1: line[at] = alphabet.randomElement(using: &random)!
            case 2: line.remove(at: at)
            case 3: line.insert(alphabet.randomElement(using: &random)!, at: at)
            default:
                let end = min(line.count, at + Int(random.next() % 12) + 1)
                line.insert(contentsOf: line[at..<end], at: at)
            }
            if line.isEmpty { line = [0x7B] }
        }
        return line
    }

    /// The document key a dump line names.
    func keyOfLine(_ line: [UInt8]) throws -> DocumentKey {
        let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
        return DocumentKey(
            profile: profile(object?["profile"] as? String ?? ""), bar: bar(object?["bar"] as? String ?? ""))
    }
}
