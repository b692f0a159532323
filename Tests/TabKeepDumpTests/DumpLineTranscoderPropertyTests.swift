import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepDump

/// A `replace` restore reads each version 3 document line it can straight into the bytes a store
/// keeps (`DumpLineTranscoder`); its slow twin scans the line into entries, makes them a
/// document (`TabBarDocument(entries:)`, which validates them) and encodes it. Over random
/// documents of every entry kind, random mutations of real lines and edits aimed at each check
/// the transcoder makes, a line it takes gives the twin's bytes, dots and newest stamp, and a
/// line the twin refuses it never takes; a whole dump read with it (`nextImported()`) gives the
/// records and the refusal, word for word, that `next()` on the slow path gives.
@Suite("Dump line transcoder, fast and slow")
struct DumpLineTranscoderPropertyTests {
    let reader = DumpReaderTests()

    /// The slow twin: the scanner's entries as a validated document, encoded.
    static func slow(_ line: [UInt8]) -> (key: DocumentKey, encoded: EncodedDocument)? {
        guard let (key, entries) = line.withUnsafeBufferPointer({ DumpDocumentLineScanner.document($0) }),
            let document = try? TabBarDocument(entries: entries, identifiersChecked: true)
        else { return nil }
        return (key, EncodedDocument(document))
    }

    /// Compares the two ways on one line; returns whether the transcoder took it.
    @discardableResult
    static func compare(_ line: [UInt8], _ what: @autoclosure () -> String) -> Bool {
        var transcoder = DumpLineTranscoder()
        let fast = line.withUnsafeBufferPointer { transcoder.document($0) }
        guard let fast else { return false }
        guard let slow = slow(line) else {
            Issue.record("the transcoder took a line the slow path refuses: \(what())")
            return true
        }
        #expect(fast.key == slow.key, "\(what())")
        #expect(fast.encoded == slow.encoded, "\(what())")
        // The bytes are a document the store's decoder reads back.
        #expect(throws: Never.self, "\(what())") { try fast.encoded.decoded() }
        return true
    }

    /// Reads a dump both ways: the transcoder's, and the slow path's every line.
    func compareDump(_ lines: [[UInt8]], name: String, _ what: @autoclosure () -> String) throws -> Int {
        func read(transcoding: Bool) throws -> (outcome: [DumpReaderTests.Outcome], transcoded: Int) {
            let path = reader.directory.sub(name + (transcoding ? "-fast" : "-slow"))
            try Data(lines.flatMap { $0 + [0x0A] }).write(to: URL(fileURLWithPath: path))
            var result: [DumpReaderTests.Outcome] = []
            var transcoded = 0
            do {
                let dump = try DumpReader(path: path)
                dump.scansDocumentLines = transcoding
                defer { transcoded = dump.transcodedDocuments }
                while true {
                    if transcoding {
                        guard let read = try dump.nextImported() else { break }
                        switch read {
                        case .record(let record): result.append(.record(record))
                        case .encoded(let key, let encoded):
                            result.append(.record(.document(key: key, document: try encoded.decoded())))
                        }
                    } else {
                        guard let record = try dump.next() else { break }
                        result.append(.record(record))
                    }
                }
            } catch let error as DumpError {
                result.append(.refused("\(error)"))
            }
            return (result, transcoded)
        }
        let fast = try read(transcoding: true)
        let slow = try read(transcoding: false)
        #expect(slow.transcoded == 0)
        #expect(
            fast.outcome == slow.outcome,
            "\(what())\nfast: \(fast.outcome.last.map(String.init(describing:)) ?? "")")
        return fast.transcoded
    }

    @Test func aRealDumpReadsTheSameBothWaysAndMostLinesAreTranscoded() throws {
        let lines = try reader.dumpLines(version: 3)
        let transcoded = try compareDump(lines, name: "real", "the real dump")
        let documents = DumpLineScannerDifferentialPropertyTests.documentLines(lines)
        for index in documents { Self.compare(lines[index], "line \(index + 1)") }
        // The lines with an escape (a badge text here) take the slow path; the rest are transcoded.
        #expect(
            transcoded > documents.count / 2 && transcoded < documents.count,
            "\(transcoded) of \(documents.count)")
    }

    @Test(arguments: [UInt64(0x7C0D), 0x7C0E, 0x7C0F])
    func randomDocumentsGiveTheSameBytesBothWays(seed: UInt64) throws {
        let lines = try reader.dumpLines(version: 3)
        let slots = DumpLineScannerDifferentialPropertyTests.documentLines(lines)
        var random = SplitMix64(seed: seed)
        var taken = 0
        for round in 0..<300 {
            let index = slots[Int(random.next() % UInt64(slots.count))]
            let key = try DumpLineScannerDifferentialPropertyTests().keyOfLine(lines[index])
            var document = DumpTranscoderPropertyTests.randomDocument(&random)
            // Most rounds without a first-format position key: the forms the fast path takes.
            if round % 4 != 0 {
                document = try DumpLineScannerDifferentialPropertyTests.withoutFirstFormatPositions(document)
            }
            let line = DumpLineScannerDifferentialPropertyTests.line(key, document)
            let context = "seed \(seed) round \(round): \(String(decoding: line, as: UTF8.self))"
            let took = Self.compare(line, context)
            let firstFormat = document.entries.contains {
                if case .position = $0.value { return true }
                return false
            }
            // Every line the writer writes without an escape or a first-format key is taken.
            if !firstFormat && !line.contains(UInt8(ascii: "\\")) {
                #expect(took, "\(context)")
                taken += took ? 1 : 0
            }
            if round % 10 == 0 {
                _ = try compareDump(
                    reader.replacing(lines, at: index, with: line), name: "r\(round)", context)
            }
        }
        #expect(taken > 150, "\(taken)")
    }

    @Test(arguments: [UInt64(0xF1A5), 0xF1A6])
    func mutatedLinesAreTakenOnlyAsTheSlowPathTakesThem(seed: UInt64) throws {
        let lines = try reader.dumpLines(version: 3)
        let slots = DumpLineScannerDifferentialPropertyTests.documentLines(lines)
        var random = SplitMix64(seed: seed)
        var taken = 0
        for round in 0..<500 {
            let index = slots[Int(random.next() % UInt64(slots.count))]
            let line = DumpLineScannerDifferentialPropertyTests.mutated(lines[index], &random)
            let context = "seed \(seed) round \(round): \(String(decoding: line, as: UTF8.self))"
            if Self.compare(line, context) { taken += 1 }
            if round % 8 == 0 {
                _ = try compareDump(
                    reader.replacing(lines, at: index, with: line), name: "m\(round)", context)
            }
        }
        // Some mutations still leave a valid line (a digit of a stamp changed, say).
        #expect(taken > 0, "\(taken)")
    }

    /// Edits aimed at each check the transcoder makes itself (the order of entries, vectors and
    /// badge totals, the caps, zeros, the tombstones against the clear, a dot held twice): each
    /// is taken only as the slow path takes it, and a dump holding it reads the same both ways.
    @Test func editsAimedAtEachCheckGiveTheSameOutcomeBothWays() throws {
        let lines = try reader.dumpLines(version: 3)
        let slot = DumpLineScannerDifferentialPropertyTests.documentLines(lines)[0]
        let key = try DumpLineScannerDifferentialPropertyTests().keyOfLine(lines[slot])
        let low = ReplicaID(rawValue: 0x0123_4567_89AB_CDEF)
        let high = ReplicaID(rawValue: 0xABCD_EF01_2345_6789)
        let other = ReplicaID(rawValue: 0x5555_5555_5555_5555)
        func entry(_ key: Entry.Key, _ value: Entry.Value, _ sequence: UInt64, by replica: ReplicaID = high)
            -> Entry
        {
            Entry(
                key: key, value: value, stamp: Stamp(rawValue: 1 << 50 + sequence), origin: replica,
                dot: Dot(replica: replica, sequence: sequence))
        }
        let document = try TabBarDocument(entries: [
            entry(.position(tab("a")), .place(TabPlace(after: tab("b"), next: nil, key: [0x80, 0x01])), 1),
            entry(.customizable(tab("a")), .flag(true), 2),
            entry(.hidden(tab("b")), .removed, 3, by: low),
            entry(.selection, .selection(.tab(tab("c"))), 4),
            entry(.badgeText(tab("d")), .text("nine"), 5),
            entry(
                .badgeReset(tab("e")),
                .badgeReset(count: 4, seen: [low: 2, high: -1], sequences: [low: 3, high: 9]),
                6),
            entry(.badgeIncrements(tab("e"), low), .badgeTotal(3), 7),
            entry(.badgeIncrements(tab("e"), high), .badgeTotal(-2), 8),
            entry(
                .cleared,
                .context(
                    VersionVector([low: 5, other: 0x10]),
                    badges: [
                        BadgeMark(tab: tab("e"), replica: low, total: 1, sequence: 2),
                        BadgeMark(tab: tab("f"), replica: high, total: 1, sequence: 3),
                    ]), 9, by: low),
        ])
        var writer = DumpWriter(version: 3)
        writer.writeDocument(key: key, document: document, catalog: nil)
        let text = String(decoding: writer.takeBytes().dropLast(), as: UTF8.self)
        #expect(Self.compare(Array(text.utf8), text), "the transcoder takes the document whole")
        let lowHex = "0123456789abcdef"
        let highHex = "abcdef0123456789"
        let otherHex = "5555555555555555"
        let edits: [(String, String)] = [
            // Entries out of order, repeated, a second selection.
            (#"["customizable","a""#, #"["customizable","0""#),
            (#"["hidden","b""#, #"["hidden","a""#), (#"["badgeText","d""#, #"["badgeText","b""#),
            (#"["badgeIncrements","e","\#(highHex)""#, #"["badgeIncrements","e","\#(lowHex)""#),
            (#"["badgeText""#, #"["selection""#),
            // A vector out of order, repeated, a zero, a count past its cap.
            (#""seen":{"\#(lowHex)":2,"\#(highHex)":-1}"#, #""seen":{"\#(highHex)":-1,"\#(lowHex)":2}"#),
            (
                #""sequences":{"\#(lowHex)":3,"\#(highHex)":9}"#,
                #""sequences":{"\#(highHex)":9,"\#(lowHex)":3}"#
            ),
            (#""sequences":{"\#(lowHex)":3,"#, #""sequences":{"\#(lowHex)":3,"\#(lowHex)":3,"#),
            (#""sequences":{"\#(lowHex)":3,"#, #""sequences":{"\#(lowHex)":0,"#),
            (#""sequences":{"\#(lowHex)":3,"\#(highHex)":9}"#, #""sequences":{"\#(lowHex)":3}"#),
            (#""sequences":{"\#(lowHex)":3,"\#(highHex)":9}"#, #""sequences":{}"#),
            (#","sequences":{"\#(lowHex)":3,"\#(highHex)":9}"#, ""),
            (
                #""seen":{"\#(lowHex)":2,"\#(highHex)":-1},"sequences":{"\#(lowHex)":3,"\#(highHex)":9}"#,
                #""seen":{"\#(highHex)":-1,"\#(lowHex)":2}"#
            ),
            (#""count":4"#, #""count":-4"#), (#""count":4"#, #""count":1099511627777"#),
            (#""count":4"#, #""count":1099511627776"#), (#":7",3]"#, #":7",1099511627777]"#),
            (#":7",3]"#, #":7",-1099511627776]"#),
            (#""context":{"\#(lowHex)":5,"#, #""context":{"\#(lowHex)":0,"#),
            (
                #""context":{"\#(lowHex)":5,"\#(otherHex)":16}"#,
                #""context":{"\#(otherHex)":16,"\#(lowHex)":5}"#
            ),
            (#""context":{"\#(lowHex)":5,"\#(otherHex)":16}"#, #""context":{"\#(lowHex)":5}"#),
            (
                #""context":{"\#(lowHex)":5,"\#(otherHex)":16}"#,
                #""context":{"\#(lowHex)":5,"\#(otherHex)":1}"#
            ),
            (
                #""context":{"\#(lowHex)":5,"\#(otherHex)":16}"#,
                #""context":{"\#(lowHex)":2,"\#(otherHex)":16}"#
            ),
            (#"{"context":{"\#(lowHex)":5,"\#(otherHex)":16},"badges":["#, #"{"context":{},"badges":["#),
            // Badge totals out of order, a zero sequence, a total past its cap, none at all.
            (#"{"tab":"f","replica":"\#(highHex)""#, #"{"tab":"e","replica":"\#(lowHex)""#),
            (#"{"tab":"f","replica":"\#(highHex)""#, #"{"tab":"d","replica":"\#(highHex)""#),
            (#""total":1,"sequence":3}"#, #""total":1,"sequence":0}"#),
            (#""total":1,"sequence":3}"#, #""total":-1099511627777,"sequence":3}"#),
            // Dots: a repeat, a tombstone the clear does not cover, a live entry it covers.
            (#""\#(highHex):2""#, #""\#(highHex):1""#), (#""\#(lowHex):3"]"#, #""\#(lowHex):30"]"#),
            (#""\#(highHex):2",true"#, #""\#(lowHex):4",true"#),
            (#""\#(lowHex):3"]"#, #""\#(lowHex):3",true]"#),
            // Keys and texts at their caps; a place's key with a last zero or an odd digit.
            (#""key":"8001"#, #""key":"8000"#), (#""key":"8001"#, #""key":"801"#),
            (#""key":"8001"#, #""key":"80A1"#),
            (#""key":"8001"#, #""key":"\#(String(repeating: "7f", count: 512))"#),
            (#""key":"8001"#, #""key":"\#(String(repeating: "7f", count: 513))"#),
            (#""nine""#, #""\#(String(repeating: "x", count: 64))""#),
            (#""nine""#, #""\#(String(repeating: "x", count: 65))""#),
            (#""nine""#, #""\#(String(repeating: "é", count: 33))""#),
            // A clear without a context, a tombstone of the clear.
            (#"{"context":"#, #"{"contexts":"#),
        ]
        var taken = 0
        for (edited, (old, new)) in edits.enumerated() {
            #expect(text.contains(old), "the line holds \(old)")
            let line = Array(text.replacingOccurrences(of: old, with: new).utf8)
            let what = "\(old) → \(new)"
            if Self.compare(line, what) { taken += 1 }
            _ = try compareDump(reader.replacing(lines, at: slot, with: line), name: "e\(edited)", what)
        }
        // The edits at a cap and the ones the slow path still accepts are taken; the rest are not.
        #expect(taken > 3 && taken < edits.count / 2, "\(taken) of \(edits.count)")
        // A line at the cap of entries of one kind, and one past it.
        var flags: [Entry] = []
        for index in 0..<1_025 {
            flags.append(
                entry(.hidden(try TabID(String(format: "t%05d", index))), .flag(true), UInt64(index + 1)))
        }
        let overCap = flags.map { flag -> String in
            let tab = flag.key.tab!.rawValue
            return
                #"["hidden","\#(tab)",\#(flag.stamp.rawValue),"\#(highHex)","\#(highHex):\#(flag.dot.sequence)",true]"#
        }
        for count in [1_024, 1_025] {
            let line = Array(
                (#"{"type":"document","profile":"\#(key.profile)","bar":"\#(key.bar)","entries":["#
                    + overCap.prefix(count).joined(separator: ",") + "]}").utf8)
            #expect(Self.compare(line, "\(count) hidden flags") == (count == 1_024))
        }
    }
}
