import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepDump

/// Random mutations of a real dump's lines, in version 2 and version 3: each mutated line is
/// refused at that line, or — when it is still a valid record — by the trailer's CRC-32, or by
/// the next line's key order.
@Suite("Dump reader, mutated lines")
struct DumpLineMutationPropertyTests {
    let reader = DumpReaderTests()

    /// How reading a dump with one line replaced ended.
    struct Reading {
        /// The last outcome: a refusal naming its line, or the last record.
        var last: String
        /// Whether the refusal names the mutated line.
        var atLine: Bool
        /// Whether it was refused where a mutation of that line must be.
        var isRefusedWhereItMust: Bool
    }

    /// What reading the dump with line `index` replaced by `line` ended with.
    func reading(_ lines: [[UInt8]], index: Int, line: [UInt8], name: String) throws -> Reading {
        var mutated = lines
        mutated[index] = line
        let read = try reader.outcome(mutated, name: name)
        let last = read.last?.description ?? ""
        let atLine = last.hasPrefix("refused: line \(index + 1): ")
        // A change that is still a valid record is caught by the trailer; a changed key may be
        // caught by the next line's order.
        let byTrailer = last.hasPrefix("refused: line \(lines.count): ") && last.contains("wrong CRC-32")
        let byOrder = last.hasPrefix("refused: line \(index + 2): ") && last.contains("order")
        return Reading(last: last, atLine: atLine, isRefusedWhereItMust: atLine || byTrailer || byOrder)
    }

    @Test(arguments: [(2, UInt64(0xD1FF)), (3, UInt64(0xD3F3))])
    func hundredsOfMutatedLinesAreRefusedAtTheLineOrByTheChecksum(version: Int, seed: UInt64) throws {
        let replay = replayLine(seed: seed, filter: "DumpLineMutationPropertyTests")
        let lines = try reader.dumpLines(version: version)
        let alphabet = Array("{}[]:,\"\\0123456789-.eEtrufalsn xyz".utf8) + [0xC3, 0xA9, 0x00, 0x7F]
        var random = SplitMix64(seed: seed)
        var refusals: Set<String> = []
        for round in 0..<300 {
            let index = Int(random.next() % UInt64(lines.count - 1))
            var line = lines[index]
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
            if line == lines[index] { continue }
            let read = try reading(lines, index: index, line: line, name: "v\(version)-m\(round)")
            if read.atLine { refusals.insert(String(read.last.split(separator: ":").last ?? "")) }
            if !read.isRefusedWhereItMust {
                let smallest = shrinkBytes(line, attempts: 400) { candidate in
                    !candidate.isEmpty && candidate != lines[index]
                        && (try? reading(lines, index: index, line: candidate, name: "shrink"))?
                            .isRefusedWhereItMust == false
                }
                let text = String(decoding: smallest, as: UTF8.self)
                Issue.record(
                    """
                    shortest line still not refused where it should be (\(smallest.count) bytes): \(text)
                    \(replay)
                    """)
            }
            #expect(
                read.isRefusedWhereItMust,
                "version \(version), round \(round): line \(index + 1): \(String(decoding: line, as: UTF8.self)) -> \(read.last)"
            )
        }
        if version == 3 { #expect(refusals.count > 5, "\(refusals)") }
    }
}
