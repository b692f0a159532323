import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepDump

/// `restore` checks a dump while it imports it, in one write transaction; `DumpReader.check` reads
/// it on its own. Over valid dumps and mutated ones (with the trailer's CRC made right again or
/// left wrong), both accept or refuse the same dumps with the same error, a refused restore leaves
/// the store's records byte for byte as they were, and an accepted replace leaves the store holding
/// exactly the dump's documents, whether it starts empty (keys appended) or holds documents before,
/// between and after the dump's (appends fall back to puts).
@Suite("Restore in one pass")
struct RestoreDifferentialPropertyTests {
    static let replay = replayLine(seed: 0x4E57, filter: "RestoreDifferentialPropertyTests")

    let lines: DumpReaderTests

    init() {
        lines = DumpReaderTests()
    }

    func store(_ name: String, occupied: Bool) throws -> TabKeepStore {
        let store = try TabKeepStore(path: lines.directory.sub(name), options: .init(durability: .deferred))
        if occupied {
            for name in ["a-first", "user-1", "user-10-x", "user-3", "zz-last"] {
                try store.edit(
                    profile(name), bar: bar("side"), catalog: letterTabs, .move(tab("b"), to: 0))
            }
        }
        return store
    }

    /// Every document the reader reads from the dump at `path`, by key, as canonical bytes.
    func documentsRead(_ path: String) throws -> [DocumentKey: [UInt8]] {
        var result: [DocumentKey: [UInt8]] = [:]
        let reader = try DumpReader(path: path)
        while let record = try reader.next() {
            if case .document(let key, let document) = record { result[key] = document.encoded() }
        }
        return result
    }

    func documentsStored(_ store: TabKeepStore) throws -> [DocumentKey: [UInt8]] {
        var result: [DocumentKey: [UInt8]] = [:]
        try store.forEachDocument { key, document in result[key] = try document.get().encoded() }
        return result
    }

    @Test func restoreRefusesExactlyWhatTheCheckRefusesAndChangesNothing() throws {
        let original = try lines.dumpLines()
        let alphabet = Array("{}[]:,\"\\0123456789-tfn xyz".utf8) + [0xC3, 0xA9]
        var random = SplitMix64(seed: 0x4E57)
        var outcomes: Set<String> = []
        for round in 0..<80 {
            var mutated = original
            if round > 0 {
                let index = 1 + Int(random.next() % UInt64(original.count - 2))
                var line = original[index]
                for _ in 0...Int(random.next() % 2) {
                    let at = Int(random.next() % UInt64(line.count))
                    switch random.next() % 4 {
                    case 0: line[at] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                    case 1: line.remove(at: at)
                    case 2: line.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: at)
                    default:
                        // A digit changed: often still a valid record (another stamp, count or sequence).
                        if let digit = line[at...].firstIndex(where: { (0x31...0x38).contains($0) }) {
                            line[digit] += 1
                        }
                    }
                    if line.isEmpty { line = [0x7B] }
                }
                mutated =
                    round % 4 == 3
                    ? {
                        var copy = original
                        copy[index] = line
                        return copy
                    }()
                    : lines.replacing(original, at: index, with: line)
            }
            let path = lines.directory.sub("dump-\(round)")
            try Data(mutated.flatMap { $0 + [0x0A] }).write(to: URL(fileURLWithPath: path))
            let checked = Result { try DumpReader.check(path: path, maxDrift: .seconds(300)) }
            for (index, (mode, occupied)) in [(ImportMode.replace, false), (.replace, true), (.merge, true)]
                .enumerated()
            {
                let target = try store("store-\(round)-\(index)", occupied: occupied)
                let before = try snapshot(target)
                let restored = Result { try target.restore(fromDumpAt: path, mode: mode) }
                switch (checked, restored) {
                case (.success(let summary), .success(let result)):
                    outcomes.insert("accepted")
                    #expect(result.summary.documents == summary.documents, "round \(round) [\(Self.replay)]")
                    #expect(result.summary.bytes == summary.bytes, "round \(round) [\(Self.replay)]")
                    let report = try target.verify()
                    #expect(
                        report.isSound, "round \(round) [\(Self.replay)] mode \(mode): \(report.problems)")
                    if mode == .replace {
                        #expect(
                            try documentsStored(target) == documentsRead(path),
                            "round \(round) [\(Self.replay)]")
                    }
                case (.failure(let expected), .failure(let error)):
                    outcomes.insert("refused")
                    // The same error, but for how far ahead a stamp is (it depends on when it is read).
                    #expect(
                        Self.timeless("\(error)") == Self.timeless("\(expected)"),
                        "round \(round) [\(Self.replay)]")
                    #expect(
                        try snapshot(target) == before,
                        "round \(round) [\(Self.replay)]: a refused restore changed the store")
                default:
                    Issue.record(
                        "round \(round) [\(Self.replay)] mode \(mode): check \(checked), restore \(restored)")
                }
            }
        }
        #expect(outcomes == ["accepted", "refused"])
    }

    static func timeless(_ message: String) -> String {
        message.replacingOccurrences(
            of: #"stamped [0-9]+ ms"#, with: "stamped … ms", options: .regularExpression)
    }
}
