import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepDump

/// Version 3 dumps (positional entries, no layout) read as strictly as version 2 ones, and restore
/// reads all three versions to the same store.
@Suite("Dump version 3")
struct DumpVersionThreeTests {
    let lines = DumpReaderTests()

    @Test func aRealVersionThreeDumpReadsBackToWhatTheStoreHolds() throws {
        let three = try lines.dumpLines(version: 3)
        #expect(String(decoding: three[0], as: UTF8.self).contains(#""version":3,"#))
        #expect(!three.contains { String(decoding: $0, as: UTF8.self).contains(#""layout""#) })
        let store = try TabKeepStore(path: lines.directory.sub("store"))
        var expected = try store.catalogs().map {
            DumpReaderTests.Outcome.record(.catalog(bar: $0.bar, catalog: $0.catalog))
        }
        try store.forEachDocument { key, document in
            expected.append(.record(.document(key: key, document: try document.get())))
        }
        #expect(expected.count == 25)
        #expect(try lines.outcome(three, name: "real-3") == expected)
        // Shorter than version 2: no member names in the entries, no layout.
        let two = try DumpReaderTests().dumpLines(version: 2)
        let threeBytes = three.reduce(0) { $0 + $1.count }
        let twoBytes = two.reduce(0) { $0 + $1.count }
        #expect(threeBytes * 3 < twoBytes * 2, "version 3: \(threeBytes) bytes, version 2: \(twoBytes)")
    }

    /// Lines of a version 3 dump with `old` replaced by `new` in the first document line holding
    /// it: what the reader says.
    func refusal(_ old: String, _ new: String) throws -> String {
        let three = try lines.dumpLines(version: 3)
        let index = try #require(
            three.firstIndex {
                $0.starts(with: Array(#"{"type":"document""#.utf8))
                    && String(decoding: $0, as: UTF8.self).contains(old)
            })
        var text = String(decoding: three[index], as: UTF8.self)
        text.replaceSubrange(text.range(of: old)!, with: new)
        let message = try lines.outcome(lines.replacing(three, at: index, with: Array(text.utf8)), name: "r3")
            .last!.description
        #expect(message.hasPrefix("refused: line \(index + 1): "), "\(message)")
        return message
    }

    @Test func aBadPositionalEntryIsNamed() throws {
        #expect(
            try refusal(#""entries":[["#, #""layout":null,"entries":[["#).contains(
                #"unknown member "layout""#))
        #expect(try refusal(#"[["position""#, #"[{"kind":"position"},["position""#).contains("not an array"))
        #expect(try refusal(#"[["position""#, #"[["spot""#).contains(#"entry 1: unknown entry kind "spot""#))
        #expect(try refusal(#"[["position""#, #"[[7"#).contains("its kind, is not a string"))
        #expect(try refusal(#"["hidden","f","#, #"["hidden","f",1,"#).contains("not 7"))
        #expect(
            try refusal(#"["hidden","f","#, #"["hidden",7,"#).contains("the tab is a number, not a string"))
        #expect(
            try refusal(#"["selection","#, #"["selection",-1,"#).contains(
                "entry 7: a selection entry has 4 elements, or 5 with its value, not 6"))
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/schema1-store")

    func documents(_ store: TabKeepStore) throws -> [DocumentKey: TabBarDocument] {
        var result: [DocumentKey: TabBarDocument] = [:]
        try store.forEachDocument { key, document in result[key] = try document.get() }
        return result
    }

    @Test(arguments: [ImportMode.replace, .merge])
    func restoreReadsVersionsOneTwoAndThreeToTheSameStore(mode: ImportMode) throws {
        let directory = TemporaryDirectory()
        let first = try TabKeepStore(path: directory.sub("from-v1"))
        let v1 = Self.fixtures.appendingPathComponent("v1.tkdump").path
        #expect(
            try String(contentsOfFile: v1, encoding: .utf8).hasPrefix(
                #"{"format":"tabkeep-dump","version":1,"#))
        let (summary, _) = try first.restore(fromDumpAt: v1, mode: mode)
        #expect(summary.documents > 0)
        let expected = try documents(first)
        #expect(expected.count == summary.documents)
        for version in [2, 3] {
            var bytes: [UInt8] = []
            try first.dump(formatVersion: version) { bytes += $0 }
            #expect(String(decoding: bytes.prefix(60), as: UTF8.self).contains(#""version":\#(version),"#))
            let path = directory.sub("v\(version).tkdump")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let restored = try TabKeepStore(path: directory.sub("from-v\(version)"))
            _ = try restored.restore(fromDumpAt: path, mode: mode)
            #expect(try documents(restored) == expected, "version \(version)")
            #expect(try restored.catalogs().map(\.bar) == (try first.catalogs().map(\.bar)))
        }
    }

    @Test func aDumpOfAnUnwrittenVersionIsRefused() throws {
        let store = try TabKeepStore(path: lines.directory.sub("store"))
        #expect(throws: DumpError.self) { try store.dump(formatVersion: 1) { _ in } }
    }
}
