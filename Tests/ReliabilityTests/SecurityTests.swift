import Foundation
import LMDBKit
import TabKeep
import TabKeepDump
import TabKeepSync
import TabKeepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Security: file modes, crafted ids, sync folders and dumps stay in bounds")
struct SecurityTests {
    static func mode(_ path: String) -> Int {
        var info = stat()
        return lstat(path, &info) == 0 ? Int(info.st_mode & 0o777) : -1
    }

    @Test func storeLockDumpAndSyncFilesAreMode0600() throws {
        let directory = TemporaryDirectory()
        let path = directory.sub("store")
        let previous = umask(0)  // even a permissive umask gives private files
        defer { umask(previous) }
        try run(
            Built.tool, ["set", path, "--profile", "p", "--catalog", "home,inbox", "--badge", "inbox=2"],
            in: directory)
        try run(Built.tool, ["dump", path, "--output", directory.sub("out.tkdump")], in: directory)
        let store = try TabKeepStore(path: path)
        let folder = directory.sub("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let transport = try FolderTransport(path: folder, store: store)
        try transport.sync()
        let lockFile = store.locking == .lmdb ? "/lock.mdb" : "/" + Environment.transactionLockFileName
        for file in [
            path + "/data.mdb", path + lockFile, directory.sub("out.tkdump"),
            folder + "/" + transport.fileName,
        ] {
            #expect(Self.mode(file) == 0o600, "\(file) is \(String(Self.mode(file), radix: 8))")
        }
    }

    @Test func craftedIdsCannotReachAnotherProfilesDocuments() throws {
        for bad in ["alice\u{0}main", "alice\u{0}", "ali\u{1}ce", "alice\n", "\u{7F}", "a\u{85}b", ""] {
            #expect(throws: IdentifierError.self) { try ProfileID(bad) }
            #expect(throws: IdentifierError.self) { try BarID(bad) }
        }
        // DocumentKey is injective: distinct (profile, bar) pairs never share key bytes.
        let names = ["a", "ab", "a b", "a/b", "b", "main", "a\u{2028}", "ä", "a\u{308}", "../x", "%00"]
        var seen: [[UInt8]: DocumentKey] = [:]
        for profile in names {
            for bar in names {
                let key = DocumentKey(profile: try ProfileID(profile), bar: try BarID(bar))
                #expect(seen.updateValue(key, forKey: key.bytes) == nil)
                #expect(try DocumentKey(bytes: key.bytes) == key)
            }
        }
        // Through the API: edits of one profile never show in a profile whose id extends it.
        let directory = TemporaryDirectory()
        let store = try TabKeepStore(path: directory.sub("store"))
        try store.registerCatalog(Fixture.catalog)
        try store.edit(try ProfileID("alice"), catalog: Fixture.catalog, Fixture.edits(setting: 5))
        try store.edit(try ProfileID("alice main"), catalog: Fixture.catalog, Fixture.edits(setting: 9))
        #expect(try store.document(try ProfileID("alice")).map(Fixture.badge) == 5)
        #expect(try store.bars(of: try ProfileID("alic")).isEmpty)
        #expect(try store.bars(of: try ProfileID("alice")) == [.main])
        // Through the CLI: control characters are refused and change nothing.
        let path = directory.sub("cli")
        try run(
            Built.tool, ["set", path, "--profile", "alice", "--catalog", "home,inbox", "--badge", "inbox=1"],
            in: directory)
        for (flag, value) in [
            ("--profile", "alice\nmain"), ("--profile", "alice\u{1}"), ("--bar", "main\u{1B}"),
        ] {
            var arguments = ["set", path, "--profile", "alice", "--badge", "inbox=7"]
            if flag == "--profile" { arguments[3] = value } else { arguments += [flag, value] }
            let result = try run(Built.tool, arguments, in: directory)
            #expect(result.status == 2 && result.output.contains("control characters"), "\(result.output)")
        }
        let shown = try run(Built.tool, ["show", path, "--profile", "alice", "--json"], in: directory)
        #expect(
            shown.output.contains("\"inbox\":1") || shown.output.contains("\"inbox\" : 1"), "\(shown.output)")
        #expect(
            try run(Built.tool, ["profiles", path], in: directory).output.split(separator: "\n").count == 1)
    }

    @Test func folderSyncNeverTouchesAPathOutsideItsFolder() throws {
        let directory = TemporaryDirectory()
        let store = try TabKeepStore(path: directory.sub("store"))
        try store.registerCatalog(Fixture.catalog)
        try store.edit(try ProfileID("p"), catalog: Fixture.catalog, Fixture.edits(setting: 3))
        let peer = try TabKeepStore(path: directory.sub("peer"))
        try peer.edit(try ProfileID("q"), catalog: Fixture.catalog, Fixture.edits(setting: 4))
        let folder = directory.sub("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Outside the folder: a valid message, and a file this replica's own name points at.
        let outsideMessage = directory.sub("outside.tkdelta")
        let reply = try SyncSession(store: peer).respond(to: SyncSession(store: store).request())
        try Data(reply.encoded()).write(to: URL(fileURLWithPath: outsideMessage))
        let outsideTarget = directory.sub("victim")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: outsideTarget))
        let transport = try FolderTransport(path: folder, store: store)
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/" + FolderTransport.fileName(for: peer.replicaID),
            withDestinationPath: outsideMessage)
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/" + transport.fileName, withDestinationPath: outsideTarget)
        let report = try transport.sync()
        #expect(report.applied.isEmpty)
        #expect(report.skipped.count == 1)
        #expect(try store.document(try ProfileID("q")) == nil, "nothing was read through the symlink")
        #expect(try String(contentsOfFile: outsideTarget, encoding: .utf8) == "keep me")
        #expect(
            Self.mode(folder + "/" + transport.fileName) == 0o600, "the symlink was replaced, not followed")
        for name in ["../escape.tkdelta", "/etc/passwd", "0123456789abcdef.tkdelta/..", "..", "."] {
            #expect(FolderTransport.replica(fromFileName: name) == nil)
        }
        // A symlinked folder is refused outright.
        try FileManager.default.createSymbolicLink(
            atPath: directory.sub("linked"), withDestinationPath: folder)
        #expect(throws: SyncError.self) { try FolderTransport(path: directory.sub("linked"), store: store) }
    }

    @Test func restoreNeverWritesOutsideTheStore() throws {
        let directory = TemporaryDirectory()
        let source = try TabKeepStore(path: directory.sub("source"))
        try source.registerCatalog(Fixture.catalog)
        for name in ["../../escape", "/etc/passwd", "..", "store/../../x"] {
            try source.edit(
                try ProfileID(name), bar: try BarID("../bar"), catalog: Fixture.catalog,
                Fixture.edits(setting: 1))
        }
        var dump: [UInt8] = []
        try source.dump { dump += $0 }
        let dumpPath = directory.sub("paths.tkdump")
        try Data(dump).write(to: URL(fileURLWithPath: dumpPath))
        // A dump that names a file is refused: "path" is no member of any record.
        var text = String(decoding: dump, as: UTF8.self)
        text = text.replacingOccurrences(
            of: "{\"type\":\"document\",", with: "{\"type\":\"document\",\"path\":\"/tmp/x\",")
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory.sub("named.tkdump")))

        let before = try FileManager.default.subpathsOfDirectory(atPath: directory.path).sorted()
        let refused = try run(
            Built.tool, ["restore", directory.sub("store"), "--input", directory.sub("named.tkdump")],
            in: directory)
        #expect(refused.status == 1)
        let restored = try run(
            Built.tool, ["restore", directory.sub("store"), "--input", dumpPath], in: directory)
        #expect(restored.status == 0, "\(restored.output)")
        let after = try FileManager.default.subpathsOfDirectory(atPath: directory.path).sorted()
        let store = try TabKeepStore(path: directory.sub("store"))
        let lockFile =
            store.locking == .lmdb ? "store/lock.mdb" : "store/" + Environment.transactionLockFileName
        #expect(Set(after).subtracting(before) == ["store", "store/data.mdb", lockFile])
        #expect(
            try store.profiles().map(\.rawValue).sorted() == [
                "..", "../../escape", "/etc/passwd", "store/../../x",
            ])
    }
}
