import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepDump

/// The dump reader has one strict parser for every line: it reads any valid JSON spelling of a
/// record (member order, whitespace, escapes) to the same record, and refuses every other line
/// with a message naming the line and the problem.
@Suite("Dump reader")
struct DumpReaderTests {
    let directory = TemporaryDirectory()

    /// A store with every entry kind, escapes and non-ASCII text, several bars and an erased profile,
    /// dumped in format `version` (these tests read version 2 lines, whose entries are objects;
    /// `DumpVersionThreeTests` reads version 3 ones).
    func dumpLines(version: Int = 2) throws -> [[UInt8]] {
        let store = try TabKeepStore(path: directory.sub("store"), options: .init(durability: .deferred))
        try store.registerCatalog(letterTabs)
        for index in 0..<12 {
            let user = profile("user-\(index)")
            try store.edit(
                user,
                [
                    .move(tab("g"), to: index % 6), .setCustomizable(["a", "b", "c"].map(tab)),
                    .setHidden(tab("f"), index % 2 == 0), .select(index % 3 == 0 ? .more : .tab(tab("b"))),
                    .setBadge(tab("a"), index), .addToBadge(tab("c"), index - 4),
                    .setBadgeText(tab("d"), index % 2 == 0 ? "new \"\\ ✓ \u{1}" : nil),
                ])
            try store.edit(
                user, bar: bar("side"), catalog: letterTabs,
                [.reorder(["b", "a", "c", "d", "e", "f", "g"].map(tab))])
        }
        try store.erase(profile("user-3"))
        var bytes: [UInt8] = []
        try store.dump(milliseconds: 1_700_000_000_000, formatVersion: version) { bytes += $0 }
        return bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map(Array.init)
    }

    /// Every record and the first refusal, as text.
    /// What reading a dump gave: a record, or the refusal that ended it. Compared as values, not
    /// as their descriptions: a catalog's description shows dictionaries, whose order differs
    /// between two equal instances.
    enum Outcome: Equatable, CustomStringConvertible {
        case record(DumpRecord)
        case refused(String)

        var description: String {
            switch self {
            case .record(let record): "\(record)"
            case .refused(let message): "refused: \(message)"
            }
        }
    }

    func outcome(_ lines: [[UInt8]], name: String, scanning: Bool = true, scanned: inout Int) throws
        -> [Outcome]
    {
        let path = directory.sub(name)
        try Data(lines.flatMap { $0 + [0x0A] }).write(to: URL(fileURLWithPath: path))
        var result: [Outcome] = []
        do {
            let reader = try DumpReader(path: path)
            reader.scansDocumentLines = scanning
            defer { scanned += reader.scannedDocuments }
            while let record = try reader.next() { result.append(.record(record)) }
        } catch {
            result.append(.refused("\(error)"))
        }
        return result
    }

    /// ``outcome(_:name:scanning:scanned:)`` with the fast path on, its count not wanted.
    func outcome(_ lines: [[UInt8]], name: String) throws -> [Outcome] {
        var scanned = 0
        return try outcome(lines, name: name, scanned: &scanned)
    }

    /// The lines with `line` replaced and the trailer's CRC-32 made right again.
    func replacing(_ lines: [[UInt8]], at index: Int, with line: [UInt8]) -> [[UInt8]] {
        var result = lines
        result[index] = line
        var crc = CRC32()
        for body in result.dropLast() {
            crc.update(body)
            crc.update(byte: 0x0A)
        }
        let hex = (0..<8).map { String(crc.value >> (28 - 4 * $0) & 0xF, radix: 16) }.joined()
        let trailer = String(decoding: result[result.count - 1], as: UTF8.self)
        result[result.count - 1] = Array(
            trailer.replacingOccurrences(
                of: #""crc32":"[0-9a-f]{8}""#, with: "\"crc32\":\"\(hex)\"", options: .regularExpression
            ).utf8)
        return result
    }

    /// `line` with a space after every `,` and `:` outside strings, and around the whole value.
    static func spaced(_ line: [UInt8]) -> [UInt8] {
        var result: [UInt8] = [0x20]
        var inString = false
        var escaped = false
        for byte in line {
            result.append(byte)
            if inString {
                if escaped {
                    escaped = false
                } else if byte == 0x5C {
                    escaped = true
                } else if byte == 0x22 {
                    inString = false
                }
            } else if byte == 0x22 {
                inString = true
            } else if byte == UInt8(ascii: ",") || byte == UInt8(ascii: ":") {
                result.append(0x20)
            }
        }
        return result + [0x09]
    }

    /// `line` with every `a` inside a string written as `\u0061`.
    static func escaped(_ line: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var inString = false
        var escaping = false
        for byte in line {
            if inString && !escaping && byte == UInt8(ascii: "a") {
                result += Array(#"\u0061"#.utf8)
                continue
            }
            result.append(byte)
            if inString {
                if escaping {
                    escaping = false
                } else if byte == 0x5C {
                    escaping = true
                } else if byte == 0x22 {
                    inString = false
                }
            } else if byte == 0x22 {
                inString = true
            }
        }
        return result
    }

    @Test func aRealDumpReadsBackToWhatTheStoreHolds() throws {
        let lines = try dumpLines()
        let store = try TabKeepStore(path: directory.sub("store"))
        var expected = try store.catalogs().map { Outcome.record(.catalog(bar: $0.bar, catalog: $0.catalog)) }
        try store.forEachDocument { key, document in
            expected.append(.record(.document(key: key, document: try document.get())))
        }
        #expect(expected.count == 25)
        #expect(try outcome(lines, name: "real") == expected)
    }

    @Test func anyValidSpellingOfALineReadsToTheSameRecord() throws {
        let lines = try dumpLines()
        let original = try outcome(lines, name: "original")
        for index in 0..<lines.count - 1 {
            let text = String(decoding: lines[index], as: UTF8.self)
            var variants = [Self.spaced(lines[index]), Self.escaped(lines[index])]
            // The type member moved from first to last.
            if let match = text.firstMatch(of: /^\{("type":"[a-z]+"),(.*)\}$/) {
                variants.append(Array("{\(match.2),\(match.1)}".utf8))
            }
            for (number, variant) in variants.enumerated() {
                let read = try outcome(
                    replacing(lines, at: index, with: variant), name: "v\(index)-\(number)")
                #expect(read == original, "line \(index + 1), variant \(number)")
            }
        }
    }

    /// The first document line of the real dump that holds `old`, with it replaced by `new`
    /// once: what the reader says, and whether it names that line.
    func refusal(_ old: String, _ new: String) throws -> (message: String, atLine: Bool) {
        let lines = try dumpLines()
        let index = try #require(
            lines.firstIndex {
                $0.starts(with: Array(#"{"type":"document""#.utf8))
                    && String(decoding: $0, as: UTF8.self).contains(old)
            })
        var text = String(decoding: lines[index], as: UTF8.self)
        text.replaceSubrange(text.range(of: old)!, with: new)
        let message = try outcome(replacing(lines, at: index, with: Array(text.utf8)), name: "refused").last!
            .description
        return (message, message.hasPrefix("refused: line \(index + 1): "))
    }

    @Test func everyKindOfProblemIsRefusedWithItsMessage() throws {
        let cases: [(old: String, new: String, message: String)] = [
            (#""bar":"#, #""bar":1,"bar":"#, #"broken JSON at column 47: duplicate member name "bar""#),
            (#""stamp":"#, #""stamp":1.5,"x":"#, "only integers are allowed"),
            (#""stamp":"#, #""stamp":01,"x":"#, "number with a leading zero"),
            (#"]}"#, #"]} x"#, "unexpected text after the value"),
            (#""bar":"#, #""bar":"\u00zz","#, "invalid \\u escape"),
            (#""entries""#, #""zeta":1,"alpha":2,"entries""#, #"unknown member "alpha""#),
            (#","stamp":"#, #","stmp":"#, #"entry 1: unknown member "stmp""#),
            (#""kind":"position""#, #""kind":"spot""#, #"entry 1: unknown entry kind "spot""#),
            (#""layout":"#, #""layout":7,"x":"#, #"unknown member "x""#),
            (#""profile":"user-0""#, #""profile":"""#, "must be 1–128 UTF-8 bytes"),
            (#""profile":"user-0""#, #""profile":7"#, #"document: "profile" is a number, not a string"#),
            (#""profile":"user-0""#, #""profile":"user-0","profile":"user-0""#, "duplicate member name"),
            (#""layout":"#, #""layout":7,"layout":"#, "duplicate member name"),
            (#""layout":{"#, #""layout":[1,"#, "broken JSON"),
            (#""layout":{"#, #""layout":{"x":1,"x":2,"#, #"duplicate member name "x""#),
            (#""entries":["#, #""layout2":7,"entries":["#, #"unknown member "layout2""#),
            (#""entries":["#, #""entries":{"#, "broken JSON"),
            (#""dot":""#, #""dot":"zz"#, #"invalid replica "zz"#),
            (#""dot":""#, #""dot":"1:2:"#, #""dot" must be REPLICA:SEQUENCE, not "1:2:"#),
            (#""removed":true"#, #""removed":false"#, #""removed" must be true and comes without "value""#),
            (
                #""removed":true"#, #""removed":true,"value":1"#,
                #""removed" must be true and comes without "value""#
            ),
            (
                #""kind":"hidden","tab":"f","value":"#, #""kind":"hidden","tab":"f","value":3,"v":"#,
                #"unknown member "v""#
            ),
            (#""kind":"selection","value":"#, #""kind":"selection","value":7,"x":"#, #"unknown member "x""#),
            (#""type":"document""#, #""type":"docu\u006dent","type2":1"#, #"unknown member "type2""#),
            (#""type":"document""#, #""type":"doc""#, #"unknown record type "doc""#),
        ]
        for (number, item) in cases.enumerated() {
            let (message, atLine) = try refusal(item.old, item.new)
            #expect(atLine, "case \(number): \(message)")
            #expect(message.contains(item.message), "case \(number): \(message)")
        }
    }

    @Test func aValueOfTheWrongKindForItsEntryIsNamed() throws {
        let (message, atLine) = try refusal(
            #""kind":"hidden","tab":"f","value":"#, #""kind":"hidden","tab":"f","value":3,"x":"#)
        #expect(atLine && message.contains("unknown member"), "\(message)")
        let lines = try dumpLines()
        let index = lines.firstIndex { String(decoding: $0, as: UTF8.self).contains(#""kind":"hidden""#) }!
        let text = String(decoding: lines[index], as: UTF8.self).replacingOccurrences(
            of: #""kind":"hidden","tab":"f","value":(true|false)"#,
            with: #""kind":"hidden","tab":"f","value":3"#,
            options: .regularExpression)
        let read = try outcome(replacing(lines, at: index, with: Array(text.utf8)), name: "kind").last!
            .description
        #expect(read.hasPrefix("refused: line \(index + 1): "), "\(read)")
        #expect(read.hasSuffix(#""value" (a number) does not fit a hidden entry"#), "\(read)")
    }
}
