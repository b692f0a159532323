import Foundation
import LMDBKit
import TabKeep
import TabKeepTestSupport
import Testing

@Suite("Durability: what reaches the disk, counted in system calls")
struct DurabilityTests {
    /// Whether strace can trace here: on Linux a missing strace fails (the README's test command
    /// installs it), a sandbox that forbids ptrace skips and says so; other systems have none.
    static let canTrace: Bool = {
        #if os(Linux)
            guard let strace = which("strace") else { return true }
            let directory = TemporaryDirectory()
            return (try? run(strace, ["-qq", "-o", "/dev/null", "true"], in: directory).status) == 0
        #else
            return false
        #endif
    }()

    /// `tabkeep set` (the CLI's default, `.full`) three times: each run flushes the data file
    /// at least once per transaction it commits (LMDB's own counter, read with mdb_stat), and
    /// writes the meta page through a descriptor opened `O_DSYNC`.
    @Test(.enabled(if: canTrace, "strace cannot trace here (not Linux, or ptrace forbidden)"))
    func everyCommitOfTabkeepSetIsFlushedToTheDataFile() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        let catalog = "home,inbox,search,library,settings"
        var checked = 0
        for value in 1...3 {
            let before = try lastTransaction(store, in: directory)
            let trace = try traced(
                Built.tool,
                ["set", store, "--profile", "alice", "--catalog", catalog, "--badge", "inbox=\(value)"],
                in: directory)
            #expect(trace.status == 0, "tabkeep set failed: \(trace.output)")
            let commits = try lastTransaction(store, in: directory) - before
            #expect(commits >= 1, "run \(value) committed nothing")
            let flushes = trace.flushes(of: store + "/data.mdb")
            #expect(
                flushes.count >= commits,
                "run \(value): \(commits) commits, \(flushes.count) flushes of data.mdb:\n\(trace.calls)")
            #expect(
                trace.calls.contains { $0.contains("data.mdb\"") && $0.contains("O_DSYNC") },
                "run \(value): no O_DSYNC descriptor for the meta page:\n\(trace.calls)")
            checked += commits
        }
        report("durability: tabkeep set flushed data.mdb for each of \(checked) commits")
    }

    /// Each mode under the driver, five edits: `.full` and `.metaAsync` flush the data file at
    /// least once per commit before `sync()`; `.deferred` flushes nothing until `sync()`, then
    /// at least once.
    @Test(
        .enabled(if: canTrace, "strace cannot trace here (not Linux, or ptrace forbidden)"),
        arguments: [Durability.full, .metaAsync, .deferred])
    func eachDurabilityFlushesWhatItPromises(durability: Durability) throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        do {
            let created = try TabKeepStore(path: store)
            try created.registerCatalog(Fixture.catalog)
        }
        let trace = try traced(
            Built.stress,
            ["commits", store, "--durability", durability.rawValue, "--edits", "5", "--sync", "yes"],
            in: directory)
        #expect(trace.status == 0, "the driver failed: \(trace.output)")
        let commits =
            trace.output.split(separator: "\n").compactMap {
                $0.hasPrefix("commits ") ? Int($0.dropFirst("commits ".count)) : nil
            }.first ?? 0
        #expect(commits >= 5, "the driver reported \(commits) commits for 5 edits")
        let flushes = trace.flushes(of: store + "/data.mdb")
        guard let marker = trace.calls.firstIndex(where: { $0.contains("write(1") && $0.contains("syncing") })
        else {
            Issue.record("no `syncing` line in the trace:\n\(trace.calls)")
            return
        }
        let beforeSync = flushes.filter { $0 < marker }.count
        let fromSync = flushes.filter { $0 > marker }.count
        switch durability {
        case .full, .metaAsync:
            #expect(
                beforeSync >= commits,
                "\(durability): \(commits) commits, \(beforeSync) flushes of data.mdb before sync():\n\(trace.calls)"
            )
        case .deferred:
            #expect(
                beforeSync == 0,
                "deferred flushed data.mdb \(beforeSync) times before sync():\n\(trace.calls)")
            #expect(fromSync >= 1, "sync() did not flush data.mdb:\n\(trace.calls)")
        }
        report(
            "durability (\(durability)): \(commits) commits, \(beforeSync) flushes before sync(), \(fromSync) from it"
        )
    }
}

/// What strace saw of one run: its flush, open and stdout-write calls, in order.
struct Trace {
    let status: Int32
    let output: String
    let calls: [String]

    /// The indexes in ``calls`` of the flushes (fsync, fdatasync, sync_file_range) of `file`.
    func flushes(of file: String) -> [Int] {
        calls.indices.filter { index in
            let call = calls[index]
            return ["fsync(", "fdatasync(", "sync_file_range("].contains { call.contains($0) }
                && call.contains("<\(file)>")
        }
    }
}

/// Runs a program under `strace -f -y`, tracing flushes, opens and writes.
func traced(_ executable: String, _ arguments: [String], in directory: TemporaryDirectory) throws -> Trace {
    guard let strace = which("strace") else {
        Issue.record("strace is missing: Tools/setup.sh installs it (Debian package strace)")
        return Trace(status: -1, output: "", calls: [])
    }
    let log = directory.sub("trace-\(UUID().uuidString)")
    let (status, output) = try run(
        strace,
        [
            "-f", "-y", "-qq", "-s", "64", "-o", log, "-e",
            "trace=fsync,fdatasync,msync,sync_file_range,openat,write",
        ]
            + [executable] + arguments,
        in: directory)
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    return Trace(status: status, output: output, calls: text.split(separator: "\n").map(String.init))
}

/// LMDB's last committed transaction id, read with lmdb-utils' `mdb_stat -e` (0 with no store).
func lastTransaction(_ store: String, in directory: TemporaryDirectory) throws -> Int {
    guard FileManager.default.fileExists(atPath: store + "/data.mdb") else { return 0 }
    guard let stat = which("mdb_stat") else {
        Issue.record("mdb_stat is missing: Tools/setup.sh installs lmdb-utils")
        return 0
    }
    let (status, output) = try run(stat, ["-e", store], in: directory)
    let line = output.split(separator: "\n").first { $0.contains("Last transaction ID:") }
    guard status == 0, let line,
        let id = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
    else {
        Issue.record("mdb_stat -e \(store) failed: \(output)")
        return 0
    }
    return id
}
