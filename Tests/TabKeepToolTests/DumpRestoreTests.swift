import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@Suite("tabkeep dump and restore")
struct DumpRestoreTests {
    /// A store with `count` profiles on two bars, some badges, one erased profile.
    static func makeStore(_ path: String, profiles count: Int) throws {
        try Tool.ok(["set", path, "--profile", "p0", "--catalog", appTabsSpec])
        try Tool.ok([
            "set", path, "--profile", "p0", "--bar", "side", "--catalog", "x,y:optional,z", "--select", "z",
        ])
        for index in 0..<count {
            try Tool.ok([
                "set", path, "--profile", "p\(index)", "--move", "help=\(1 + index % 4)", "--badge-add",
                "inbox=\(index)",
                "--badge-text", "search=\"q\\u\(index)\"", "--select", index % 2 == 0 ? "more" : "library",
            ])
        }
        try Tool.ok(["set", path, "--profile", "gone", "--select", "inbox"])
        try Tool.ok(["erase", path, "--profile", "gone"])
    }

    @Test func dumpRestoreDumpRoundTripsButForHeader() throws {
        let directory = TemporaryDirectory()
        try Self.makeStore(directory.sub("a"), profiles: 6)
        try Tool.ok(["dump", directory.sub("a"), "--output", directory.sub("a.tkdump")])
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.sub("a.tkdump"))
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let first = try String(contentsOfFile: directory.sub("a.tkdump"), encoding: .utf8)
        #expect(
            try Tool.ok(["dump", directory.sub("a")]).split(separator: "\n").dropFirst().dropLast()
                == dumpBody(first)[...])

        let restored = try Tool.ok(["restore", directory.sub("b"), "--input", directory.sub("a.tkdump")])
        #expect(restored.contains("8 documents") && restored.contains("8 added"))
        let second = try Tool.ok(["dump", directory.sub("b")])
        #expect(dumpBody(first) == dumpBody(second))
        let headerA = try #require(first.split(separator: "\n").first)
        let headerB = try #require(second.split(separator: "\n").first)
        #expect(headerA != headerB, "a restored store keeps its own replica id")
        #expect(
            headerA.hasPrefix(
                "{\"format\":\"tabkeep-dump\",\"version\":3,\"schema\":\(TabKeepStore.schemaVersion),\"replica\":"
            ))
        #expect(try Tool.ok(["verify", directory.sub("b")]).hasPrefix("ok"))
        for profile in ["p0", "p3", "p5"] {
            #expect(
                try Tool.ok(["show", directory.sub("a"), "--profile", profile, "--json"])
                    == (try Tool.ok(["show", directory.sub("b"), "--profile", profile, "--json"])))
        }
        let dry = try Tool.ok([
            "restore", directory.sub("b"), "--input", directory.sub("a.tkdump"), "--mode", "merge",
            "--dry-run",
        ])
        #expect(dry.contains("8 unchanged"))
        let filtered = try Tool.ok(["dump", directory.sub("a"), "--profile", "p1", "--profile", "p2"])
        #expect(dumpBody(filtered).filter { $0.contains("\"type\":\"document\"") }.count == 2)
    }

    @Test func restoreMergeIntoADivergedStoreMatchesASync() throws {
        let directory = TemporaryDirectory()
        let (a, b) = (directory.sub("a"), directory.sub("b"))
        try Self.makeStore(a, profiles: 3)
        try Tool.ok(["dump", a, "--output", directory.sub("seed")])
        try Tool.ok(["restore", b, "--input", directory.sub("seed")])
        // Diverge: both sides edit the same and different profiles.
        try Tool.ok(["set", a, "--profile", "p1", "--move", "settings=1", "--badge-add", "inbox=4"])
        try Tool.ok(["set", a, "--profile", "new-a", "--select", "help"])
        try Tool.ok([
            "set", b, "--profile", "p1", "--move", "library=1", "--badge-add", "inbox=2", "--hide", "search",
        ])
        try Tool.ok(["set", b, "--profile", "p2", "--reset"])
        try Tool.ok(["set", b, "--profile", "new-b", "--badge", "help=9"])
        try Tool.ok(["backup", a, directory.sub("a-merge")])
        try Tool.ok(["backup", a, directory.sub("a-sync")])
        try Tool.ok(["dump", b, "--output", directory.sub("b.tkdump")])
        let report = try Tool.ok([
            "restore", directory.sub("a-merge"), "--input", directory.sub("b.tkdump"), "--mode", "merge",
        ])
        #expect(report.contains("(merge)") && report.contains("0 removed"))
        try Tool.ok(["sync", directory.sub("a-sync"), "--peer", b])
        let profiles = try Tool.ok(["profiles", directory.sub("a-sync")])
        #expect(try Tool.ok(["profiles", directory.sub("a-merge")]) == profiles)
        #expect(profiles.contains("new-a") && profiles.contains("new-b"))
        for line in profiles.split(separator: "\n") {
            let profile = String(line.split(separator: "\t")[0])
            #expect(
                try Tool.ok(["show", directory.sub("a-merge"), "--profile", profile, "--json"])
                    == (try Tool.ok(["show", directory.sub("a-sync"), "--profile", profile, "--json"])),
                "\(profile)")
        }
        let merged = try Tool.ok(["show", directory.sub("a-merge"), "--profile", "p1", "--json"])
        #expect(merged.contains("\"badges\":{\"inbox\":7}"))
        #expect(try Tool.ok(["verify", directory.sub("a-merge")]).hasPrefix("ok"))
    }

    /// One way to break a good dump, and what the error must say.
    struct Breakage: CustomStringConvertible, Sendable {
        var name: String
        var line: String
        var message: String
        var change: @Sendable ([String]) -> [String]
        var description: String { name }
    }

    // A dump of makeStore(profiles: 2): 1 header, 2-3 catalogs (main, side), 4-7 documents
    // (gone/main, p0/main, p0/side, p1/main), 8 trailer.
    static let breakages: [Breakage] = [
        Breakage(name: "truncated", line: "line 4", message: "truncated") { lines in
            var kept = Array(lines.prefix(4))
            kept[3] = String(kept[3].prefix(40))
            return kept
        },
        Breakage(name: "no trailer", line: "line 8", message: "missing trailer") { Array($0.dropLast()) },
        Breakage(name: "wrong CRC", line: "line 8", message: "wrong CRC-32") { lines in
            var changed = lines
            changed[4] = changed[4].replacingOccurrences(of: "\"inbox\"", with: "\"inbux\"")
            return changed
        },
        Breakage(name: "broken JSON", line: "line 3", message: "broken JSON") { lines in
            var changed = lines
            changed[2] = String(changed[2].dropLast())
            return changed
        },
        Breakage(name: "unknown format version", line: "line 1", message: "unknown format version 7") {
            lines in
            var changed = lines
            changed[0] = changed[0].replacingOccurrences(of: "\"version\":3", with: "\"version\":7")
            return changed
        },
        Breakage(name: "duplicate document", line: "line 6", message: "duplicate document") { lines in
            var changed = lines
            changed.insert(lines[4], at: 5)
            return changed
        },
        Breakage(name: "over-long id", line: "line 5", message: "must be 1–128 UTF-8 bytes") { lines in
            var changed = lines
            let long = String(repeating: "x", count: 129)
            changed[4] = changed[4].replacingOccurrences(
                of: "\"profile\":\"p0\"", with: "\"profile\":\"\(long)\"")
            return changed
        },
    ]

    @Test(arguments: breakages)
    func aBadDumpIsRefusedByLineAndChangesNothing(_ breakage: Breakage) throws {
        let directory = TemporaryDirectory()
        try Self.makeStore(directory.sub("source"), profiles: 2)
        let good = try Tool.ok(["dump", directory.sub("source")])
        let lines = good.split(separator: "\n").map(String.init)
        #expect(lines.count == 8)
        let broken =
            breakage.change(lines).joined(separator: "\n") + (breakage.name == "truncated" ? "" : "\n")
        try broken.write(toFile: directory.sub("bad.tkdump"), atomically: true, encoding: .utf8)

        try Tool.ok([
            "set", directory.sub("target"), "--profile", "keep", "--catalog", "a,b", "--select", "b",
        ])
        let before = try Tool.ok(["dump", directory.sub("target")])
        for mode in ["replace", "merge"] {
            let result = try Tool.run([
                "restore", directory.sub("target"), "--input", directory.sub("bad.tkdump"), "--mode", mode,
            ])
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("tabkeep: error: \(breakage.line): "), "\(result.stderr)")
            #expect(result.stderr.contains(breakage.message), "\(result.stderr)")
        }
        let after = try Tool.ok(["dump", directory.sub("target")])
        #expect(dumpBody(before) == dumpBody(after))
        let fresh = try Tool.run(["restore", directory.sub("fresh"), "--input", directory.sub("bad.tkdump")])
        #expect(fresh.status == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.sub("fresh")))
    }

    @Test func restoreErrorsAreUsageOrFailure() throws {
        let directory = TemporaryDirectory()
        #expect(try Tool.run(["restore", directory.sub("s")]).status == 2)
        let missing = try Tool.run(["restore", directory.sub("s"), "--input", directory.sub("none")])
        #expect(missing.status == 1 && missing.stderr.hasPrefix("tabkeep: error: no file"))
        try "".write(toFile: directory.sub("empty"), atomically: true, encoding: .utf8)
        let empty = try Tool.run(["restore", directory.sub("s"), "--input", directory.sub("empty")])
        #expect(empty.status == 1 && empty.stderr.contains("line 1"))
        #expect(try Tool.run(["dump", directory.sub("none")]).status == 1)
    }
}
