import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

/// Replication per profile through the tool, as ops people run it: partial dumps, replace restores,
/// backups copied back and far-future dumps. Each case ends in a full sync and checks that both
/// stores hold the same documents and every edit made on either side.
@Suite("Replication per profile: dumps, restores, backups, scoped sync")
struct ReplicationLifecycleTests {
    static let catalog = "a,b,c,d,e,f,g"

    /// Both stores hold the same documents, byte for byte (catalogs are each app's own), and verify.
    func expectSameDocuments(
        _ first: String, _ second: String, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        func documents(_ path: String) throws -> [DocumentKey: [UInt8]] {
            var result: [DocumentKey: [UInt8]] = [:]
            try TabKeepStore(path: path).forEachDocument { key, document in
                result[key] = try document.get().encoded()
            }
            return result
        }
        #expect(try documents(first) == documents(second), sourceLocation: sourceLocation)
        #expect(try Tool.ok(["verify", first]).hasPrefix("ok"), sourceLocation: sourceLocation)
        #expect(try Tool.ok(["verify", second]).hasPrefix("ok"), sourceLocation: sourceLocation)
    }

    func order(_ store: String, _ profile: String) throws -> String {
        let shown = try Tool.ok(["show", store, "--profile", profile, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any])
        return (object["order"] as? [String] ?? []).joined(separator: " ")
    }

    func badges(_ store: String, _ profile: String) throws -> [String: Int] {
        let shown = try Tool.ok(["show", store, "--profile", profile, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any])
        return object["badges"] as? [String: Int] ?? [:]
    }

    @Test func aPartialDumpMergedIntoAnotherStoreNeverStopsBobFromArriving() throws {
        let directory = TemporaryDirectory()
        let (a, b, dump) = (directory.sub("A"), directory.sub("B"), directory.sub("alice.dump"))
        try Tool.ok(["set", a, "--profile", "alice", "--catalog", Self.catalog])
        try Tool.ok(["set", a, "--profile", "bob", "--move", "c=0"])
        try Tool.ok(["set", a, "--profile", "alice", "--move", "b=0"])
        try Tool.ok(["dump", a, "--profile", "alice", "--output", dump])
        try Tool.ok(["set", b, "--profile", "carol", "--catalog", Self.catalog, "--badge-add", "a=1"])
        try Tool.ok(["restore", b, "--input", dump, "--mode", "merge"])
        let synced = try Tool.ok(["sync", b, "--peer", a])
        #expect(synced.contains("received 1 documents"), "bob arrives: \(synced)")
        try expectSameDocuments(a, b)
        for store in [a, b] {
            #expect(try order(store, "bob") == "c a b d e f g")
            #expect(try order(store, "alice") == "b a c d e f g")
            #expect(try badges(store, "carol") == ["a": 1])
        }
    }

    @Test func aReplaceRestoreOfAnotherDevicesDumpTakesAFreshIdAndStillConverges() throws {
        let directory = TemporaryDirectory()
        let (a, b, dump) = (directory.sub("A"), directory.sub("B"), directory.sub("a.dump"))
        try Tool.ok([
            "set", a, "--profile", "alice", "--catalog", Self.catalog, "--move", "g=0", "--badge-add", "a=2",
        ])
        try Tool.ok(["set", b, "--profile", "alice", "--catalog", Self.catalog, "--badge-add", "a=5"])
        try Tool.ok(["set", b, "--profile", "bob", "--move", "d=0"])
        let before = try TabKeepStore(path: b).replicaID
        try Tool.ok(["dump", a, "--output", dump])
        try Tool.ok(["restore", b, "--input", dump, "--mode", "replace"])
        let after = try TabKeepStore(path: b).replicaID
        #expect(after != before)
        #expect(try Tool.ok(["stat", b, "--json"]).contains("\"identityHistory\":[\"\(before)\"]"))
        // B now holds exactly A's documents; both go on editing and sync.
        try Tool.ok(["set", b, "--profile", "alice", "--move", "c=0"])
        try Tool.ok(["set", a, "--profile", "alice", "--badge-add", "a=1"])
        try Tool.ok(["sync", b, "--peer", a])
        try expectSameDocuments(a, b)
        for store in [a, b] {
            #expect(try order(store, "alice") == "c g a b d e f")
            #expect(try badges(store, "alice") == ["a": 3])
        }
    }

    @Test func aBackupCopiedBackOverAStoreTakesAFreshIdSoPeersTakeItsNextEdits() throws {
        let directory = TemporaryDirectory()
        let (a, b, copy) = (directory.sub("A"), directory.sub("B"), directory.sub("copy"))
        try Tool.ok(["set", a, "--profile", "alice", "--catalog", Self.catalog, "--badge-add", "a=1"])
        try Tool.ok(["set", b, "--profile", "bob", "--catalog", Self.catalog, "--move", "b=0"])
        try Tool.ok(["backup", a, copy])
        // A goes on and syncs its later edits to B; then A's disk is restored from the backup.
        try Tool.ok(["set", a, "--profile", "alice", "--badge-add", "a=2", "--move", "f=0"])
        try Tool.ok(["sync", a, "--peer", b])
        let old = try TabKeepStore(path: a).replicaID
        for file in ["data.mdb", "lock.mdb"] { try? FileManager.default.removeItem(atPath: "\(a)/\(file)") }
        try FileManager.default.copyItem(atPath: "\(copy)/data.mdb", toPath: "\(a)/data.mdb")
        // The restored device edits: were it to reuse its old id, B would skip these as already held.
        try Tool.ok(["set", a, "--profile", "alice", "--badge-add", "a=4"])
        #expect(try TabKeepStore(path: a).replicaID != old)
        try Tool.ok(["sync", a, "--peer", b])
        try expectSameDocuments(a, b)
        for store in [a, b] {
            #expect(try badges(store, "alice") == ["a": 7])
            #expect(try order(store, "alice") == "f a b c d e g")
        }
    }

    @Test func aDumpFromTheFarFutureIsRefusedWholeNamingItsLine() throws {
        let directory = TemporaryDirectory()
        let (future, b, dump) = (directory.sub("future"), directory.sub("B"), directory.sub("future.dump"))
        // A device whose clock ran a day ahead wrote this dump.
        let store = try TabKeepStore(path: future)
        var device = Replica(
            id: ReplicaID(rawValue: 0xFA5E),
            clock: HybridLogicalClock(
                last: Stamp(milliseconds: HybridLogicalClock.wallMilliseconds() + 86_400_000, counter: 0)))
        var document = TabBarDocument()
        try document.apply(
            .move(try TabID("g"), to: 0),
            catalog: try Catalog(Self.catalog.split(separator: ",").map { try TabID(String($0)) }),
            by: &device)
        _ = try store.importDocuments(mode: .merge, maxDrift: .seconds(2 * 86_400)) { add in
            try add(DocumentKey(profile: try ProfileID("alice"), bar: .main), document)
        }
        try Tool.ok(["dump", future, "--output", dump])
        try Tool.ok(["set", b, "--profile", "bob", "--catalog", Self.catalog, "--move", "b=0"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: b + "/data.mdb"))
        let refused = try Tool.run(["restore", b, "--input", dump, "--mode", "merge"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("line 2: document for profile \"alice\"")
                && refused.stderr.contains("ahead of this machine's clock"),
            "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: b + "/data.mdb")) == bytes)
        #expect(try Tool.run(["restore", b, "--input", dump, "--max-drift", "soon"]).status == 2)
        // Two hours of drift allowed is still not a day: refused again, nothing written.
        #expect(
            try Tool.run(["restore", b, "--input", dump, "--mode", "merge", "--max-drift", "2h"]).status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: b + "/data.mdb")) == bytes)
        let peer = directory.sub("C")
        try Tool.ok(["set", peer, "--profile", "carol", "--catalog", Self.catalog, "--badge-add", "a=1"])
        try Tool.ok(["sync", b, "--peer", peer])
        try expectSameDocuments(b, peer)
        #expect(try order(peer, "bob") == "b a c d e f g")
        #expect(try badges(b, "carol") == ["a": 1])
    }

    @Test func aScopedFolderSyncNeverWritesOrReadsAnotherProfile() throws {
        let directory = TemporaryDirectory()
        let (phone, tablet, folder) = (
            directory.sub("phone"), directory.sub("tablet"), directory.sub("alice-folder")
        )
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Tool.ok(["set", phone, "--profile", "alice", "--catalog", Self.catalog, "--move", "e=0"])
        try Tool.ok(["set", phone, "--profile", "bobby-secret", "--move", "d=0", "--badge-text", "c=bobtext"])
        try Tool.ok(["set", tablet, "--profile", "alice", "--catalog", Self.catalog, "--badge-add", "a=2"])
        try Tool.ok([
            "set", tablet, "--profile", "carol-secret", "--move", "f=0", "--badge-text", "b=caroltext",
        ])
        for _ in 0..<2 {
            try Tool.ok(["sync", phone, "--folder", folder, "--profile", "alice"])
            try Tool.ok(["sync", tablet, "--folder", folder, "--profile", "alice"])
        }
        // Not one byte of the other profiles' ids or entries is in the folder.
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            for secret in ["bobby-secret", "carol-secret", "bobtext", "caroltext"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(name) holds \(secret)")
            }
        }
        for store in [phone, tablet] {
            #expect(try order(store, "alice") == "e a b c d f g")
            #expect(try badges(store, "alice") == ["a": 2])
        }
        #expect(!(try Tool.ok(["profiles", phone])).contains("carol-secret"))
        #expect(!(try Tool.ok(["profiles", tablet])).contains("bobby-secret"))
        // A whole sync afterwards brings everything together.
        try Tool.ok(["sync", phone, "--peer", tablet])
        try expectSameDocuments(phone, tablet)
    }

    @Test func aFirstFormatFileInTheFolderIsSkippedWithItsVersionNamed() throws {
        let directory = TemporaryDirectory()
        let (store, folder) = (directory.sub("store"), directory.sub("folder"))
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", Self.catalog, "--move", "b=0"])
        // What the first release wrote: magic, format 1, then its body.
        let old = Array("TKSY".utf8) + [1, 2] + [UInt8](repeating: 0, count: 20)
        try Data(old).write(to: URL(fileURLWithPath: folder + "/00000000000000aa.tkdelta"))
        let result = try Tool.run(["sync", store, "--folder", folder, "--profile", "alice"])
        #expect(result.status == 0)
        #expect(
            result.stderr.contains("skipped 00000000000000aa.tkdelta")
                && result.stderr.contains("format version 1"))
    }

    @Test func aSchemaOneStoreMigratesAndSyncsWithASchemaTwoStore() throws {
        let directory = TemporaryDirectory()
        let (old, new) = (directory.sub("old"), directory.sub("new"))
        try FileManager.default.createDirectory(atPath: old, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: OldStoreTests.fixtures.appendingPathComponent("data.mdb").path, toPath: old + "/data.mdb")
        let aliceBefore = try order(old, "alice")
        // Read-only work leaves it at schema 1; the sync, its first open for writing, migrates it.
        #expect(try Tool.ok(["stat", old, "--json"]).contains("\"schema\":1"))
        try Tool.ok([
            "set", new, "--profile", "alice", "--catalog",
            "home:fixed,inbox,search,library,wallet,settings,labs:optional",
        ])
        try Tool.ok(["set", new, "--profile", "zoe", "--badge-add", "inbox=2"])
        try Tool.ok(["sync", new, "--peer", old])
        #expect(try Tool.ok(["stat", old, "--json"]).contains("\"schema\":\(TabKeepStore.schemaVersion)"))
        try expectSameDocuments(old, new)
        #expect(try order(new, "alice") == aliceBefore)
        // Both go on editing, and their edits keep reaching each other.
        try Tool.ok(["set", old, "--profile", "carol", "--badge-add", "inbox=1"])
        try Tool.ok(["set", new, "--profile", "carol", "--badge-add", "inbox=2"])
        try Tool.ok(["sync", old, "--peer", new])
        try expectSameDocuments(old, new)
        #expect(try badges(new, "carol")["inbox"] == 3)
    }
}
