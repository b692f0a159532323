import Foundation
import LMDBKit
import TabKeep
import TabKeepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Per-transaction locking across processes")
struct PerTransactionLockingTests {
    /// Fills a bare environment, then runs a reader that holds one snapshot for 1.5 s while
    /// another process tries to commit five full rewrites; returns the reader's mismatch count
    /// (nil when the reader failed or crashed) and how many commits the writer made during the hold.
    private func snapshotRun(coordination: Bool, in directory: TemporaryDirectory) throws -> (
        mismatches: Int?, commitsDuringHold: Int, readerOutput: String
    ) {
        let path = directory.sub("env")
        let switchOff = coordination ? [] : ["--coordination", "off"]
        let fill = try run(Built.stress, ["overwrite", path, "--commits", "1"] + switchOff, in: directory)
        #expect(fill.status == 0, "\(fill.output)")
        let reader = try Child(
            Built.stress, ["snapshot-reader", path, "--hold-ms", "1500"] + switchOff, in: directory)
        #expect(reader.waitForLine(startingWith: "holding") != nil, "\(reader.errorText)")
        let writer = try Child(
            Built.stress, ["overwrite", path, "--commits", "5"] + switchOff, in: directory)
        // What the writer managed while the reader still held its snapshot.
        usleep(1_200_000)
        let duringHold = writer.lines.filter { $0.hasPrefix("committed ") }.count
        let readerStatus = reader.wait()
        #expect(writer.wait() == 0, "\(writer.errorText)")
        let line = reader.lines.first { $0.hasPrefix("mismatches ") }
        let mismatches = readerStatus == 0 ? line.flatMap { Int($0.dropFirst("mismatches ".count)) } : nil
        return (mismatches, duringHold, reader.lines.joined(separator: "; ") + reader.errorText)
    }

    /// The rule per-transaction mode exists for: no read lives across another process's commits.
    /// The writer waits for the reader, and every value the reader reads again is the one its
    /// snapshot held.
    @Test func aReaderKeepsItsSnapshotWhileAnotherProcessCommits() throws {
        let directory = TemporaryDirectory()
        let result = try snapshotRun(coordination: true, in: directory)
        #expect(result.mismatches == 0, "the snapshot changed under the reader: \(result.readerOutput)")
        #expect(result.commitsDuringHold == 0, "the writer committed while a reader held its snapshot")
        report("snapshot with coordination: 0 changed values, writer waited for the reader")
    }

    /// The same run with the coordination switched off (`MDB_NOLOCK` alone): LMDB's writer reuses
    /// the pages of the reader's snapshot after two commits, and the reader sees its values
    /// change (or reads garbage and fails). This is the failure the lock prevents.
    @Test func withoutTheCoordinationTheReaderSeesItsSnapshotChange() throws {
        let directory = TemporaryDirectory()
        let result = try snapshotRun(coordination: false, in: directory)
        #expect(result.commitsDuringHold >= 3, "the writer should not wait without the lock")
        #expect(
            result.mismatches == nil || result.mismatches! > 0,
            "MDB_NOLOCK alone kept the snapshot: \(result.readerOutput)")
        report(
            "snapshot without coordination: \(result.mismatches.map { "\($0) changed values" } ?? "the reader failed") after \(result.commitsDuringHold) commits"
        )
    }

    /// Another process grows the map past this one's: the next transaction here adopts it, in
    /// per-transaction mode as in lmdb mode (LMDBKitTests' MapResizeTests, with mdb_load).
    @Test func aMapGrownByAnotherProcessIsAdopted() throws {
        let directory = TemporaryDirectory()
        let path = directory.sub("env")
        let env = try Environment.open(
            path: path,
            configuration: Configuration(
                databases: ["items"], initialMapSize: 64 << 10, locking: .perTransaction))
        let items = try env.database("items")
        try env.write { txn in try txn.put(items, key: Array("mine".utf8), value: [1]) }
        let before = try env.info().mapSize
        // 2,000 values of 64 bytes: more than a 64 KiB map holds.
        let grown = try run(Built.stress, ["overwrite", path, "--commits", "1"], in: directory)
        #expect(grown.status == 0, "\(grown.output)")
        try env.read { txn throws in
            #expect(try txn.get(items, key: Array("mine".utf8)) == [1])
            #expect(try txn.get(items, key: Array("key-01999".utf8)) != nil)
        }
        #expect(try env.info().mapSize > before)
        try env.write { txn in try txn.put(items, key: Array("after".utf8), value: [2]) }
    }

    /// `/proc/locks` rows of this process on the files of the store at `path`.
    private func locksHeld(on path: String) -> [String] {
        let files = ["data.mdb", "lock.mdb", Environment.transactionLockFileName].compactMap {
            name -> String? in
            var status = stat()
            guard stat(path + "/" + name, &status) == 0 else { return nil }
            return ":\(status.st_ino)"  // /proc/locks names a file as MAJOR:MINOR:INODE
        }
        // Three reads: the kernel writes /proc/locks in chunks and can skip a row that moves meanwhile.
        let table = (0..<3).map { _ in (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? "" }
            .joined(separator: "\n")
        let pid = String(getpid())
        return table.split(separator: "\n").map(String.init).filter { row in
            let fields = row.split(separator: " ").map(String.init)
            return fields.contains(pid) && fields.contains { field in files.contains { field.hasSuffix($0) } }
        }
    }

    /// The synchronous edit, which an async context would not pick.
    private func editSynchronously(_ store: TabKeepStore, _ profile: ProfileID, _ edits: [TabBarEdit]) throws
    {
        try store.edit(profile, edits)
    }

    /// In per-transaction mode a process holds no lock on any store file between its calls: with
    /// the store open, a change stream subscribed, a coordinator attached and async edits done,
    /// `/proc/locks` shows nothing of it, without any `suspend()`.
    @MainActor
    @Test func aProcessUsingTheStoreHoldsNoLockBetweenCalls() async throws {
        let directory = TemporaryDirectory()
        let path = directory.sub("store")
        let store = try TabKeepStore(path: path, options: .init(locking: .perTransaction))
        let profile = try ProfileID("alice")
        let changes = store.changes()
        let model = TabBarControllerModel()
        let coordinator = TabBarCoordinator(
            store: store, profile: profile, catalog: Fixture.catalog, host: model)
        try coordinator.attach()
        try await store.edit(profile, .addToBadge(Fixture.badgeTab, 2))
        try editSynchronously(store, profile, [.move(try TabID("settings"), to: 0)])
        try model.userTap(.tab(Fixture.badgeTab))
        try await coordinator.flush()
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next()?.profile == profile, "the change stream follows the edits")
        // The probe sees a lock while a transaction is open, so it can see one left behind.
        let inside = try store.environment.read { _ in locksHeld(on: path) }
        #expect(!inside.isEmpty, "a read transaction holds its shared lock")
        #expect(locksHeld(on: path) == [], "a lock is held between calls")
        #expect(try store.layout(profile).badges[Fixture.badgeTab] == 2)
        coordinator.detach()
        report("no lock between calls: \(inside.count) held inside a read, none after")
    }

    /// A writer killed in the middle of its commits, 100 times: its lock dies with it, so the
    /// next write of another process goes through at once; every acknowledged edit is there and
    /// `verify` stays clean.
    @Test func aWriterKilledMidCommitNeverWedgesTheOthers() throws {
        let directory = TemporaryDirectory()
        let path = directory.sub("store")
        do {
            let store = try TabKeepStore(path: path, options: .init(locking: .perTransaction))
            try store.registerCatalog(Fixture.catalog)
        }
        var random = SystemRandomNumberGenerator()
        var acknowledged: [String: Int] = [:]
        let kills = killCount(100)
        for round in 0..<kills {
            let victim = try Child(
                Built.stress, ["edit", path, "--seed", "\(round)", "--profiles", "2", "--prefix", "victim-"],
                in: directory)
            _ = victim.waitForLine(startingWith: "ack ", seconds: 10)
            usleep(UInt32.random(in: 0...20_000, using: &random))
            victim.kill()
            for line in victim.lines where line.hasPrefix("ack ") {
                let parts = line.split(separator: " ")
                acknowledged[String(parts[1])] = Int(parts[2])!
            }
            // The next writer, another process, must not wait on the dead one.
            let next = try Child(
                Built.tool, ["set", path, "--profile", "after", "--badge", "inbox=\(round + 1)"],
                in: directory)
            let deadline = Date().addingTimeInterval(20)
            while next.process.isRunning && Date() < deadline { usleep(2_000) }
            if next.process.isRunning {
                next.kill()
                Issue.record("round \(round): a write after the kill did not go through within 20 s")
                return
            }
            #expect(next.wait() == 0, "round \(round): \(next.errorText)")
        }
        #expect(try verifyProblems(path, in: directory) == nil)
        let store = try TabKeepStore(path: path)
        for (name, acked) in acknowledged {
            let shown = try store.document(try ProfileID(name)).map(Fixture.badge) ?? 0
            #expect(
                shown != nil && shown! >= acked,
                "\(name) shows \(String(describing: shown)), acknowledged \(acked)")
        }
        #expect(try store.layout(try ProfileID("after")).badges[Fixture.badgeTab] == kills)
        #expect(acknowledged.count == 2, "the victims made too few edits to test anything")
        report("per-transaction kills: \(kills) writers killed, every next write went through")
    }

    /// A reader killed while it holds its lock: the kernel drops the lock, and the writer that
    /// was waiting for it goes on.
    @Test func aReaderKilledMidReadReleasesItsLock() throws {
        let directory = TemporaryDirectory()
        let path = directory.sub("store")
        do {
            let store = try TabKeepStore(path: path, options: .init(locking: .perTransaction))
            try store.registerCatalog(Fixture.catalog)
        }
        let reader = try Child(Built.stress, ["hold-reader", path], in: directory)
        #expect(reader.waitForLine(startingWith: "reading ") != nil, "\(reader.errorText)")
        let writer = try Child(
            Built.tool, ["set", path, "--profile", "p0", "--badge", "inbox=1"], in: directory)
        usleep(300_000)
        #expect(writer.process.isRunning, "a write went through beside a live reader's snapshot")
        reader.kill()
        #expect(writer.wait() == 0, "\(writer.errorText)")
    }

    /// Readers of other processes that hold a read at every instant (three threads each, reads
    /// of 20 ms back to back) do not keep a writer out: once it waits, the turnstile stops their
    /// new reads, the reads in flight end, and its commits go through while both streams still
    /// run. Without the turnstile the writer would wait until the streams end, 30 s later.
    @Test func readersOfOtherProcessesReadingWithoutPauseDoNotStarveAWriter() throws {
        let directory = TemporaryDirectory()
        let path = directory.sub("env")
        let fill = try run(Built.stress, ["overwrite", path, "--commits", "1"], in: directory)
        #expect(fill.status == 0, "\(fill.output)")
        let streams = try (0..<2).map { _ in
            try Child(
                Built.stress,
                ["read-stream", path, "--threads", "3", "--hold-ms", "20", "--for-ms", "30000"],
                in: directory)
        }
        defer { for stream in streams { stream.kill() } }
        for stream in streams {
            #expect(stream.waitForLine(startingWith: "streaming") != nil, "\(stream.errorText)")
        }
        let writer = try run(Built.stress, ["overwrite", path, "--commits", "3"], in: directory)
        let streaming = streams.map { $0.process.isRunning }
        #expect(writer.status == 0, "\(writer.output)")
        #expect(writer.output.contains("committed 3"), "\(writer.output)")
        #expect(
            streaming == [true, true],
            "the writer got in only once the readers stopped: \(streams.map(\.errorText))")
        report("a writer beside two processes reading without pause: 3 commits while they read")
    }

    /// While no writer waits, a read takes and lets go of the lock byte only: two `fcntl` calls
    /// on the lock file a read (the turnstile's third one is for when a writer waits), counted
    /// with strace over a stream of reads of one thread.
    @Test(.enabled(if: DurabilityTests.canTrace, "strace cannot trace here (not Linux, or ptrace forbidden)"))
    func aReadWithNoWriterWaitingMakesTwoLockCalls() throws {
        let directory = TemporaryDirectory()
        let path = directory.sub("env")
        let fill = try run(Built.stress, ["overwrite", path, "--commits", "1"], in: directory)
        #expect(fill.status == 0, "\(fill.output)")
        guard let strace = which("strace") else {
            Issue.record("strace is missing: Tools/setup.sh installs it (Debian package strace)")
            return
        }
        let log = directory.sub("trace")
        let stream = try run(
            strace,
            ["-f", "-y", "-qq", "-o", log, "-e", "trace=fcntl"]
                + [Built.stress, "read-stream", path, "--threads", "1", "--hold-ms", "0", "--for-ms", "300"],
            in: directory)
        #expect(stream.status == 0, "\(stream.output)")
        let reads = stream.output.split(separator: "\n").first { $0.hasPrefix("streamed ") }
            .flatMap { Int($0.dropFirst("streamed ".count)) }
        let trace = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let lockCalls = trace.split(separator: "\n").filter {
            $0.contains("transactions.lock>") && $0.contains("F_SETLKW")
        }.count
        guard let reads, reads >= 50 else {
            Issue.record("the stream made too few reads to count: \(stream.output)")
            return
        }
        // The open's own calls (the mode's probe, the first read) come on top of the reads'.
        #expect(
            lockCalls >= 2 * reads && lockCalls <= 2 * reads + 8, "\(lockCalls) lock calls for \(reads) reads"
        )
        report("per-transaction reads: \(lockCalls) lock calls for \(reads) reads")
    }

    /// The two modes never share a store: a store's recorded mode refuses the other one, from
    /// another process, and a per-transaction open of a store that a process holds open in lmdb
    /// mode is refused even when the directory claims per-transaction.
    @Test func theTwoModesAreNeverMixed() throws {
        let directory = TemporaryDirectory()
        let lmdbStore = directory.sub("lmdb")
        let perTransactionStore = directory.sub("per-transaction")
        for (store, mode) in [(lmdbStore, "lmdb"), (perTransactionStore, "per-transaction")] {
            let made = try run(
                Built.tool, ["set", store, "--profile", "p0", "--catalog", "home,inbox", "--locking", mode],
                in: directory)
            #expect(made.status == 0, "\(made.output)")
        }
        let refused = try run(
            Built.tool,
            ["set", lmdbStore, "--profile", "p0", "--badge", "inbox=1", "--locking", "per-transaction"],
            in: directory)
        #expect(refused.status == 1)
        #expect(
            refused.output.contains("uses lmdb locking and cannot be opened with per-transaction locking"))
        let other = try run(
            Built.tool,
            ["set", perTransactionStore, "--profile", "p0", "--badge", "inbox=1", "--locking", "lmdb"],
            in: directory)
        #expect(other.status == 1)
        #expect(other.output.contains("uses per-transaction locking and cannot be opened with lmdb locking"))
        let stat = try run(Built.tool, ["stat", perTransactionStore, "--json"], in: directory)
        #expect(stat.output.contains("\"locking\":\"per-transaction\""))

        // A live lmdb-mode process, and a lock file that appeared beside it.
        let holder = try Child(Built.stress, ["hold-reader", lmdbStore], in: directory)
        #expect(holder.waitForLine(startingWith: "reading ") != nil, "\(holder.errorText)")
        let lockFile = lmdbStore + "/" + Environment.transactionLockFileName
        #expect(FileManager.default.createFile(atPath: lockFile, contents: nil))
        #expect {
            _ = try Environment.open(path: lmdbStore, configuration: Configuration(databases: ["meta"]))
        } throws: { error in
            guard case .lockingMismatch(_, .lmdb, .perTransaction)? = error as? LMDBError else {
                return false
            }
            return true
        }
        holder.kill()
        #expect(try run(Built.tool, ["verify", perTransactionStore], in: directory).status == 0)
    }
}
