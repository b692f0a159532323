import Foundation
import TabKeepTestSupport
import Testing

@Suite("tabkeep stores and other tools, other processes")
struct InteropTests {
    @Test func lmdbUtilitiesReadAStoreTabkeepMade() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        let mdbStat = try #require(which("mdb_stat"), "mdb_stat from lmdb-utils is needed on PATH")
        let mdbDump = try #require(which("mdb_dump"), "mdb_dump from lmdb-utils is needed on PATH")
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", appTabsSpec, "--move", "help=1"])
        let stat = try Tool.run(["-a", store], executable: mdbStat)
        #expect(stat.status == 0, "\(stat.stderr)")
        for name in ["meta", "profiles", "catalogs", "changes"] {
            #expect(stat.stdout.contains("Status of \(name)"), "mdb_stat lists \(name)")
        }
        let dump = try Tool.run(["-a", store], executable: mdbDump)
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stdout.contains("database=profiles") && dump.stdout.contains("database=catalogs"))
        #expect(dump.stdout.contains("VERSION=3"))
    }

    @Test func aBackupTakenWhileAnotherProcessWritesHoldsEveryEarlierEdit() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        try Tool.ok(["set", store, "--profile", "seed", "--catalog", appTabsSpec, "--select", "inbox"])
        // The writer runs until it is stopped, and prints each profile once its edit is committed.
        let script = """
            i=0
            while :; do
              "$0" set "$1" --profile "w$i" --badge-add inbox=1 --select help >/dev/null || exit 1
              echo "w$i"
              i=$((i+1))
            done
            """
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", script, Tool.binary, store]
        let pipe = Pipe()
        writer.standardOutput = pipe
        writer.standardError = FileHandle.nullDevice
        try writer.run()
        defer {
            if writer.isRunning { writer.terminate() }
            writer.waitUntilExit()
        }
        // Waits for the event itself: the writer's report of its sixth commit.
        var committed: [String] = []
        var pending = Data()
        while committed.count < 6 {
            let chunk = pipe.fileHandleForReading.availableData
            try #require(!chunk.isEmpty, "the writer stopped before committing six edits")
            pending.append(chunk)
            while let newline = pending.firstIndex(of: 0x0A) {
                committed.append(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
        try Tool.ok(["backup", store, directory.sub("copy")])
        #expect(writer.isRunning, "the writer only stops when told to")
        writer.terminate()
        #expect(try Tool.ok(["verify", directory.sub("copy")]).hasPrefix("ok"))
        let copied = Set(
            try Tool.ok(["profiles", directory.sub("copy")]).split(separator: "\n").map {
                $0.split(separator: "\t")[0]
            })
        for profile in committed {
            #expect(copied.contains(Substring(profile)), "the backup holds \(profile)")
        }
        let shown = try Tool.ok(["show", directory.sub("copy"), "--profile", "w0", "--json"])
        #expect(shown.contains("\"badges\":{\"inbox\":1}") && shown.contains("\"selected\":\"help\""))
    }
}
