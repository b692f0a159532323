import Foundation
import TabKeep
import TabKeepSync
import TabKeepTestSupport
import Testing

@Suite("tabkeep sync: a folder file that over-claims is repaired and warned about")
struct OverClaimFolderSyncTests {
    @Test func aFileClaimingMoreThanItsWriterHoldsNeverDropsAnEditAndIsWarnedAbout() throws {
        let directory = TemporaryDirectory()
        let folder = directory.sub("shared")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let (phone, tablet) = (directory.sub("phone"), directory.sub("tablet"))
        try Tool.ok(["set", phone, "--profile", "alice", "--catalog", appTabsSpec, "--badge-add", "inbox=1"])
        try Tool.ok(["set", tablet, "--profile", "alice", "--catalog", appTabsSpec])
        try Tool.ok(["sync", phone, "--folder", folder, "--profile", "alice"])
        let phoneFile = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first)
        let phoneID = try #require(FolderTransport.replica(fromFileName: phoneFile))
        // Something else writes a file claiming the phone's edits of alice up to 1000.
        let alice = try ProfileID("alice")
        let bogus = SyncMessage(
            kind: .reply, sender: ReplicaID(rawValue: 0xaa), scope: .only([alice]),
            sections: [
                ProfileDelta(
                    profile: alice, vector: VersionVector([phoneID: 1000]), base: VersionVector(),
                    documents: [])
            ])
        try Data(bogus.encoded()).write(
            to: URL(fileURLWithPath: folder + "/" + FolderTransport.fileName(for: bogus.sender)))
        try Tool.ok(["sync", tablet, "--folder", folder, "--profile", "alice"])
        let warned = try Tool.run(["sync", phone, "--folder", folder, "--profile", "alice"])
        #expect(warned.status == 0)
        #expect(
            warned.stderr.contains(
                "tabkeep: warning: repaired a bad version vector: profile \"alice\": replica 00000000000000aa "
                    + "claims this replica (\(phoneID)) up to sequence 1000"), "\(warned.stderr)")
        for _ in 0..<5 {
            try Tool.ok([
                "set", phone, "--profile", "alice", "--catalog", appTabsSpec, "--badge-add", "inbox=1",
            ])
        }
        for _ in 0..<2 {
            for store in [phone, tablet] {
                try Tool.run(["sync", store, "--folder", folder, "--profile", "alice"])
            }
        }
        for store in [phone, tablet] {
            let shown = try Tool.ok(["show", store, "--profile", "alice", "--json"])
            #expect(shown.contains("\"badges\":{\"inbox\":6}"), "\(store): \(shown)")
            #expect(try Tool.ok(["verify", store]).hasPrefix("ok"))
        }
    }
}
