import Foundation
import LMDBKit
import TabKeep
import TabKeepDump
import TabKeepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A replace restore while another process has the store open: in per-transaction mode the
/// restore renames a fresh file over the store's and the other process reopens at its next
/// transaction, reading the new content and writing into it; in lmdb mode the restore runs in
/// one transaction instead (the other process's map would keep the old file). Either way the
/// other process sees the restored badge and its edit after it is kept.
@Suite("Replace restore beside another process")
struct ReplaceRestoreProcessTests {
    let directory = TemporaryDirectory()

    static func inode(_ path: String) -> UInt64 {
        var status = stat()
        return stat(path + "/data.mdb", &status) == 0 ? UInt64(status.st_ino) : 0
    }

    @Test(arguments: Locking.allCases)
    func anotherProcessReadsAndWritesTheRestoredContent(_ locking: Locking) throws {
        let source = try TabKeepStore(
            path: directory.sub("source"), options: .init(durability: .deferred, locking: locking))
        try source.registerCatalog(Fixture.catalog)
        for index in 0..<300 {
            try source.edit(
                try ProfileID(index == 0 ? "p0" : "other-\(index)"), catalog: Fixture.catalog,
                Fixture.edits(setting: index == 0 ? 7 : index))
        }
        let dump = directory.sub("source.tkdump")
        var bytes: [UInt8] = []
        try source.dump { bytes += $0 }
        try Data(bytes).write(to: URL(fileURLWithPath: dump))

        let path = directory.sub("store")
        let store = try TabKeepStore(path: path, options: .init(locking: locking))
        try store.registerCatalog(Fixture.catalog)
        try store.edit(try ProfileID("p0"), catalog: Fixture.catalog, Fixture.edits(setting: 1))
        try store.edit(try ProfileID("gone"), catalog: Fixture.catalog, Fixture.edits(setting: 2))

        let follower = try Child(
            Built.stress, ["follow", path, "--profile", "p0", "--badge", "7"], in: directory)
        defer { follower.kill() }
        #expect(
            follower.waitForLine(startingWith: "ready 1") != nil, "\(follower.lines) \(follower.errorText)")
        let inode = Self.inode(path)
        let (summary, report) = try store.restore(fromDumpAt: dump, mode: .replace)
        #expect(summary.documents == 300 && report.removed == 1 && report.changed == 1)
        #expect(
            (Self.inode(path) != inode) == (locking == .perTransaction),
            "per-transaction mode replaces the file; lmdb mode, with another process on the store, does not")
        #expect(
            follower.waitForLine(startingWith: "edited 8") != nil, "\(follower.lines) \(follower.errorText)")
        #expect(follower.wait() == 0, "\(follower.errorText)")
        // The follower's edit went into the file that stays.
        #expect(try store.document(try ProfileID("p0")).flatMap(Fixture.badge(of:)) == 8)
        #expect(try store.document(try ProfileID("gone")) == nil)
        #expect(try store.verify().isSound)
        if let problems = try verifyProblems(path, in: directory) { Issue.record("verify: \(problems)") }
    }
}
