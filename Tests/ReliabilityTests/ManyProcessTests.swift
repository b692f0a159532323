import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Many processes on one store")
struct ManyProcessTests {
    /// Four writer and four reader processes for a few seconds: no acknowledged edit is lost, no
    /// reader sees a torn document, and the store verifies afterwards.
    @Test func fourWritersAndFourReadersLoseNothingAndSeeNothingTorn() throws {
        let directory = TemporaryDirectory()
        let path = directory.sub("store")
        do {
            let store = try TabKeepStore(path: path)
            try store.registerCatalog(Fixture.catalog)
            for writer in 0..<4 {
                try store.edit(
                    try ProfileID("w\(writer)-p0"), catalog: Fixture.catalog, Fixture.edits(setting: 0))
            }
        }
        let writers = try (0..<4).map { writer in
            try Child(
                Built.stress,
                ["edit", path, "--seed", "\(writer)", "--profiles", "3", "--prefix", "w\(writer)-"],
                in: directory)
        }
        let readers = try (0..<4).map { _ in try Child(Built.stress, ["read", path], in: directory) }
        let seconds = ProcessInfo.processInfo.environment["TABKEEP_SOAK"] == "1" ? 60.0 : 4.0
        usleep(UInt32(seconds * 1_000_000))
        for child in writers + readers { child.kill() }

        var acknowledged: [String: Int] = [:]
        for writer in writers {
            for line in writer.lines where line.hasPrefix("ack ") {
                let parts = line.split(separator: " ")
                acknowledged[String(parts[1])] = Int(parts[2])!
            }
            #expect(!writer.errorText.contains("tabkeep-stress:"), "a writer failed: \(writer.errorText)")
        }
        var passes = 0
        for reader in readers {
            let torn = reader.lines.filter { $0.hasPrefix("torn") }
            #expect(torn.isEmpty, "a reader saw: \(torn)")
            #expect(!reader.errorText.contains("tabkeep-stress:"), "a reader failed: \(reader.errorText)")
            passes +=
                reader.lines.compactMap { $0.hasPrefix("reads ") ? Int($0.split(separator: " ")[1]) : nil }
                .max() ?? 0
        }
        #expect(try verifyProblems(path, in: directory) == nil)
        let store = try TabKeepStore(path: path)
        for (name, acked) in acknowledged {
            let shown = try store.document(try ProfileID(name)).map(Fixture.badge) ?? 0
            #expect(
                shown == acked || shown == acked + 1,
                "\(name) shows \(String(describing: shown)), acked \(acked)")
        }
        let edits = acknowledged.values.reduce(0, +)
        #expect(acknowledged.count == 12 && passes > 0)
        report(
            "many processes: 4 writers made \(edits) acknowledged edits, 4 readers made \(passes)+ full passes, nothing torn or lost"
        )
    }

    /// Four processes edit the same document at once for a few seconds: each adds to one shared
    /// badge and moves a tab of its own. Every acknowledged add is counted and every acknowledged
    /// move still stands, so no process's commit was built on a document another had already
    /// changed. It opens the store as the app does, so a locking mode chosen for the whole run
    /// (`TABKEEP_LOCKING`) is the one tested.
    @Test func fourProcessesEditingOneDocumentLoseNoAcknowledgedAddOrMove() throws {
        let directory = TemporaryDirectory()
        let path = directory.sub("store")
        let shared = try ProfileID("shared")
        let own = ["home", "search", "library", "settings"]
        do {
            let store = try TabKeepStore(path: path)
            try store.registerCatalog(Fixture.catalog)
        }
        let writers = try own.enumerated().map { writer, tab in
            try Child(
                Built.stress, ["contend", path, "--tab", tab, "--seed", "\(writer + 1)"], in: directory)
        }
        for writer in writers {
            #expect(writer.waitForLine(startingWith: "ready") != nil, "\(writer.errorText)")
        }
        let seconds = ProcessInfo.processInfo.environment["TABKEEP_SOAK"] == "1" ? 60.0 : 4.0
        usleep(UInt32(seconds * 1_000_000))
        for child in writers { child.kill() }

        var adds = 0
        var moves = 0
        var lastMove: [TabID: UInt64] = [:]
        for writer in writers {
            #expect(!writer.errorText.contains("tabkeep-stress:"), "a writer failed: \(writer.errorText)")
            var mine = 0
            for line in writer.lines {
                let parts = line.split(separator: " ")
                if line == "ack add" { mine += 1 }
                if parts.count == 4, parts[1] == "move" {
                    lastMove[try TabID(String(parts[2]))] = UInt64(parts[3])
                    moves += 1
                }
            }
            // Each writer must have edited while the others did, or nothing was contended.
            #expect(mine > 0, "a writer acknowledged no add")
            adds += mine
        }
        #expect(try verifyProblems(path, in: directory) == nil)
        let store = try TabKeepStore(path: path)
        let document = try #require(try store.document(shared))
        let shown = document.layout(catalog: Fixture.catalog).badges[Fixture.badgeTab] ?? 0
        // Each writer may have had one add committed but not yet acknowledged when killed.
        #expect(
            shown >= adds && shown <= adds + writers.count,
            "the badge shows \(shown) after \(adds) acknowledged adds from \(writers.count) processes")
        for (tab, stamp) in lastMove {
            let entry = document.entries.first { $0.key == .position(tab) }
            #expect(
                (entry?.stamp.rawValue ?? 0) >= stamp,
                "\(tab)'s acknowledged move (stamp \(stamp)) was undone: \(String(describing: entry?.stamp))")
        }
        #expect(moves > 0, "no move was acknowledged")
        report(
            "one document, 4 processes: \(adds) acknowledged adds (badge \(shown)) and \(moves) moves, none lost"
        )
    }
}
