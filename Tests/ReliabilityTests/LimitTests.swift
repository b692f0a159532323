import Foundation
import LMDBKit
import TabKeep
import TabKeepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Limits: full map, full disk, read-only directory, dead readers")
struct LimitTests {
    @Test func aFullMapGivesAClearErrorAndKeepsEveryEarlierCommit() throws {
        let directory = TemporaryDirectory()
        let path = directory.sub("store")
        var committed = 0
        var failure: TabKeepError?
        do {
            let store = try TabKeepStore(
                path: path, options: .init(maxMapSize: 256 << 10, initialMapSize: 64 << 10))
            try store.registerCatalog(Fixture.catalog)
            while failure == nil && committed < 100_000 {
                let profile = try ProfileID("profile-\(committed)")
                do throws(TabKeepError) {
                    try store.edit(profile, catalog: Fixture.catalog, Fixture.edits(setting: committed + 1))
                    committed += 1
                } catch {
                    failure = error
                }
            }
            #expect(failure == .storage(.mapFull))
            #expect(failure.map { String(describing: $0) }?.contains("MDB_MAP_FULL") == true)
            // The failed edit changed nothing; reads still work in the same process.
            #expect(try store.document(try ProfileID("profile-\(committed)")) == nil)
            #expect(try store.profiles().count == committed)
        }
        #expect(committed > 100)
        #expect(try verifyProblems(path, in: directory) == nil)
        let reopened = try TabKeepStore(path: path, options: .init(maxMapSize: 1 << 20))
        for index in 0..<committed {
            let document = try reopened.document(try ProfileID("profile-\(index)"))
            #expect(document.map(Fixture.badge) == index + 1)
        }
        // A larger maximum lets writing go on.
        try reopened.edit(
            try ProfileID("profile-\(committed)"), catalog: Fixture.catalog, Fixture.edits(setting: 1))
        report("map full: \(committed) commits kept, then \(failure!)")
    }

    /// Whether this process may make a private mount namespace (root, or CAP_SYS_ADMIN), where
    /// a read-only bind mount or a tiny tmpfs stops even root, unlike permission bits.
    static let canMount: Bool = {
        guard
            let unshare = ["/usr/bin/unshare", "/bin/unshare"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: unshare)
        process.arguments = ["-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    @Test(.enabled(if: canMount, "needs unshare -m and mount (root or CAP_SYS_ADMIN)"))
    func aStoreOnAReadOnlyDirectoryStillReadsAndRefusesWritesCleanly() throws {
        let directory = TemporaryDirectory()
        let path = directory.sub("store")
        do {
            let store = try TabKeepStore(path: path)
            try store.registerCatalog(Fixture.catalog)
            try store.edit(try ProfileID("p0"), catalog: Fixture.catalog, Fixture.edits(setting: 41))
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb"))
        // Root ignores permission bits, so the directory is made read-only the way a filesystem
        // remounted read-only is: a read-only bind mount of it, in a private mount namespace.
        let script =
            "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && exec \"$2\" read-only \"$1\" --profile p0 --badge 41"
        let result = try run(
            "/usr/bin/unshare", ["-m", "sh", "-c", script, "sh", path, Built.stress], in: directory)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("read ok"))
        #expect(result.output.contains("write refused: storage error:"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")) == before)
        report("read-only directory: \(result.output.split(separator: "\n").joined(separator: "; "))")
    }

    @Test(.enabled(if: canMount, "needs unshare -m and mount (root or CAP_SYS_ADMIN)"))
    func aFullDiskFailsTheWriteCleanlyAndKeepsEveryEarlierCommit() throws {
        let directory = TemporaryDirectory()
        let mountPoint = directory.sub("small")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let script = "mount -t tmpfs -o size=384k tmpfs \"$1\" && exec \"$2\" fill-disk \"$1/store\""
        let result = try run(
            "/usr/bin/unshare", ["-m", "sh", "-c", script, "sh", mountPoint, Built.stress], in: directory)
        #expect(result.status == 0, "\(result.output)")
        // LMDB reports a short page write as EIO, a failed one as ENOSPC.
        #expect(
            result.output.contains("error: storage error: Input/output error")
                || result.output.contains("error: storage error: No space left on device"))
        let filled = result.output.split(separator: "\n").first { $0.hasPrefix("filled ") }
        #expect(result.output.contains("kept \(filled?.dropFirst(7) ?? "?")"))
        report("full disk: \(result.output.split(separator: "\n").joined(separator: "; "))")
    }

    @Test func aReaderKilledMidReadLeavesASlotTheNextOpenClears() throws {
        let mdbStat = try #require(which("mdb_stat"), "mdb_stat from lmdb-utils is needed on PATH")
        let directory = TemporaryDirectory()
        let path = directory.sub("store")
        // This process keeps the store open, so no later open is the only one and resets the table.
        // Reader slots are lmdb mode's (per-transaction: PerTransactionLockingTests).
        let store = try TabKeepStore(path: path, options: .init(locking: .lmdb))
        try store.registerCatalog(Fixture.catalog)
        let reader = try Child(Built.stress, ["hold-reader", path], in: directory)
        let line = try #require(reader.waitForLine(startingWith: "reading "))
        let pid = String(line.dropFirst("reading ".count))
        let slots = { () throws -> [String] in
            try run(mdbStat, ["-r", path], in: directory).output.split(separator: "\n")
                .map { $0.split(separator: " ").first.map(String.init) ?? "" }
        }
        #expect(try slots().contains(pid), "the live reader holds a slot")
        reader.kill()
        #expect(try slots().contains(pid), "the killed reader's slot stays until someone checks")
        // The next open (here, the tool's) runs mdb_reader_check.
        #expect(try verifyProblems(path, in: directory) == nil)
        #expect(try !slots().contains(pid), "the next open cleared the dead reader's slot")
        #expect(try store.environment.clearStaleReaders() == 0)
        report("dead reader: slot of pid \(pid) cleared by the next open")
    }
}
