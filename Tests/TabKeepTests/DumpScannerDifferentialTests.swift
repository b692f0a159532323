import Foundation
import TabKeep
import Testing

@testable import TabKeepDump

/// The dump reader reads document lines in the writer's exact shape with a fast scanner and falls
/// back to the generic JSON parser for anything else. Both paths must agree on every input: the
/// same records, the same refusals, the same messages.
@Suite("Dump scanner differential")
struct DumpScannerDifferentialTests {
    let directory = TestDirectory()

    /// A store with every entry kind, escapes and non-ASCII text, several bars and an erased profile.
    func dumpLines() throws -> [[UInt8]] {
        let store = try TabKeepStore(path: directory.sub("store"), options: .init(durability: .deferred))
        try store.registerCatalog(sevenTabs)
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
                user, bar: bar("side"), catalog: sevenTabs,
                [.reorder(["b", "a", "c", "d", "e", "f", "g"].map(tab))])
        }
        try store.erase(profile("user-3"))
        var bytes: [UInt8] = []
        try store.dump(milliseconds: 1_700_000_000_000) { bytes += $0 }
        return bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map(Array.init)
    }

    /// Every record and the first refusal, as text, reading `lines` with or without the scanner.
    func outcome(_ lines: [[UInt8]], scanning: Bool, name: String) throws -> [String] {
        let path = directory.sub(name)
        try Data(lines.flatMap { $0 + [0x0A] }).write(to: URL(fileURLWithPath: path))
        var result: [String] = []
        do {
            let reader = try DumpReader(path: path)
            reader.scansDocumentLines = scanning
            while let record = try reader.next() { result.append("\(record)") }
        } catch {
            result.append("refused: \(error)")
        }
        return result
    }

    @Test func theScannerReadsEveryDocumentLineOfARealDump() throws {
        let lines = try dumpLines()
        let documents = lines.filter(DumpDocumentScanner.looksLikeDocument)
        #expect(documents.count == 24)
        // Lines with an escaped string go the generic way by design; every other line is scanned.
        for line in documents where !line.contains(0x5C) {
            #expect(throws: Never.self) { try DumpDocumentScanner.scan(line) }
        }
        #expect(documents.filter { !$0.contains(0x5C) }.count >= 12)
        #expect(try outcome(lines, scanning: true, name: "a") == outcome(lines, scanning: false, name: "b"))
    }

    @Test func bothPathsAgreeOnHundredsOfMutatedDocumentLines() throws {
        let lines = try dumpLines()
        let documentIndices = lines.indices.filter { DumpDocumentScanner.looksLikeDocument(lines[$0]) }
        let alphabet = Array("{}[]:,\"\\0123456789-.eEtrufalsn xyz".utf8) + [0xC3, 0xA9, 0x00, 0x7F]
        var random = SplitMix64(seed: 0xD1FF)
        var scannedDifferently = 0
        for round in 0..<300 {
            var mutated = lines
            let index = documentIndices.randomElement(using: &random)!
            var line = mutated[index]
            let digits = line.indices.filter { (0x30...0x39).contains(line[$0]) }
            if round % 3 == 0, let at = digits.randomElement(using: &random) {
                line[at] = 0x30 + UInt8(random.next() % 10)  // a number changes: often still in shape
            } else {
                for _ in 0...Int(random.next() % 3) {
                    let at = Int(random.next() % UInt64(line.count))
                    switch random.next() % 5 {
                    case 0: line[at] = alphabet.randomElement(using: &random)!
                    case 1, 2: line.remove(at: at)
                    case 3: line.insert(alphabet.randomElement(using: &random)!, at: at)
                    default:
                        let end = min(line.count, at + Int(random.next() % 12) + 1)
                        line.insert(contentsOf: line[at..<end], at: at)
                    }
                    if line.isEmpty { line = [0x7B] }
                }
            }
            mutated[index] = line
            let fast = try outcome(mutated, scanning: true, name: "fast\(round)")
            let generic = try outcome(mutated, scanning: false, name: "generic\(round)")
            #expect(
                fast == generic, "round \(round): line \(index + 1): \(String(decoding: line, as: UTF8.self))"
            )
            if (try? DumpDocumentScanner.scan(line)) != nil { scannedDifferently += 1 }
        }
        // Some mutations must still be in the scanner's shape, or the test says nothing about it.
        #expect(scannedDifferently > 30)
    }
}
