import Foundation
import TabKeep
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Many processes on one store")
struct ManyProcessTests {
    /// Four writer and four reader processes for a few seconds: no acknowledged edit is lost, no
    /// reader sees a torn document, and the store verifies afterwards.
    @Test func fourWritersAndFourReadersLoseNothingAndSeeNothingTorn() throws {
        let directory = TestDirectory()
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
}
