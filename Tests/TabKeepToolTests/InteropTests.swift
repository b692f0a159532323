import Foundation
import Testing

@Suite("tabkeep stores and other tools, other processes")
struct InteropTests {
    @Test func lmdbUtilitiesReadAStoreTabkeepMade() throws {
        let directory = try TemporaryDirectory()
        let store = directory("store")
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", sevenTabs, "--move", "help=1"])
        let stat = try Tool.run(["-a", store], executable: "/usr/bin/mdb_stat")
        #expect(stat.status == 0, "\(stat.stderr)")
        for name in ["meta", "documents", "dots", "versions", "catalogs"] {
            #expect(stat.stdout.contains("Status of \(name)"), "mdb_stat lists \(name)")
        }
        let dump = try Tool.run(["-a", store], executable: "/usr/bin/mdb_dump")
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stdout.contains("database=documents") && dump.stdout.contains("database=dots"))
        #expect(dump.stdout.contains("VERSION=3"))
    }

    @Test func aBackupTakenWhileAnotherProcessWritesHoldsEveryEarlierEdit() throws {
        let directory = try TemporaryDirectory()
        let store = directory("store")
        try Tool.ok(["set", store, "--profile", "seed", "--catalog", sevenTabs, "--select", "inbox"])
        let script = """
            i=0
            while [ $i -lt 400 ]; do
              "$0" set "$1" --profile "w$i" --badge-add inbox=1 --select help >/dev/null || exit 1
              i=$((i+1))
            done
            """
        let (writer, out, err) = try Tool.start(["-c", script, Tool.binary, store], executable: "/bin/sh")
        defer {
            if writer.isRunning { writer.terminate() }
            writer.waitUntilExit()
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        // Wait until the writer has committed a few edits, then note what is committed.
        var committed: [Substring] = []
        for _ in 0..<200 where committed.count < 6 {
            committed = try Tool.ok(["profiles", store]).split(separator: "\n")
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(committed.count >= 6)
        try Tool.ok(["backup", store, directory("copy")])
        #expect(writer.isRunning, "the backup ran while the other process was still writing")
        #expect(try Tool.ok(["verify", directory("copy")]).hasPrefix("ok"))
        let copied = Set(try Tool.ok(["profiles", directory("copy")]).split(separator: "\n"))
        for line in committed { #expect(copied.contains(line), "the backup holds \(line)") }
        let shown = try Tool.ok(["show", directory("copy"), "--profile", "w0", "--json"])
        #expect(shown.contains("\"badges\":{\"inbox\":1}") && shown.contains("\"selected\":\"help\""))
    }
}
