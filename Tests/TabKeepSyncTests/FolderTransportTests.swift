import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

@Suite struct FolderTransportTests {
    @Test func threeStoresSyncingThroughOneFolderConverge() throws {
        let directory = TemporaryDirectory()
        let folder = directory.folder("shared")
        let stores = try ["phone", "tablet", "laptop"].map { try directory.store($0) }
        let transports = try stores.map { try FolderTransport(path: folder, store: $0) }
        try stores[0].edit(profile("user"), catalog: letterTabs, .move(tab("e"), to: 0))
        try stores[1].edit(profile("user"), catalog: letterTabs, .addToBadge(tab("a"), 2))
        try stores[2].edit(profile("guest"), catalog: letterTabs, .setHidden(tab("c"), true))
        for _ in 0..<2 {
            for transport in transports {
                let report = try transport.sync()
                #expect(report.skipped.isEmpty, "\(report.skipped)")
            }
        }
        let reference = try documentBytes(stores[0])
        #expect(reference.count == 2)
        for store in stores.dropFirst() { #expect(try documentBytes(store) == reference) }
        for transport in transports {
            var info = stat()
            #expect(lstat(folder + "/" + transport.fileName, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
        }
        // No temporary files are left behind.
        #expect(try FolderFiles.names(in: folder) == transports.map(\.fileName).sorted())
    }

    @Test func badFilesAreSkippedReportedAndRetriedAndNothingIsWrittenOutside() throws {
        let directory = TemporaryDirectory()
        let folder = directory.folder("shared")
        let store = try directory.store("mine")
        let other = try directory.store("other")
        let stranger = try directory.store("stranger")
        try other.edit(profile("user"), catalog: letterTabs, .move(tab("d"), to: 0))
        try stranger.edit(profile("intruder"), catalog: letterTabs, .setHidden(tab("a"), true))
        let otherBytes = try SyncSession(store: other).deltaMessage(kind: .reply, after: [:], scope: .all)
            .encoded()
        let strangerBytes = try SyncSession(store: stranger).deltaMessage(
            kind: .reply, after: [:], scope: .all
        )
        .encoded()
        let otherName = FolderTransport.fileName(for: other.replicaID)
        let garbageName = FolderTransport.fileName(for: ReplicaID(rawValue: 0xBAD))
        let mismatchName = FolderTransport.fileName(for: ReplicaID(rawValue: 0xC0FFEE))
        let linkName = FolderTransport.fileName(for: ReplicaID(rawValue: 0x11E))
        // A half-written file, garbage, a foreign name, a file whose sender is not its name, a
        // symlink to a valid file outside the folder, and a valid message just outside it.
        try Data(otherBytes.prefix(otherBytes.count / 2)).write(
            to: URL(fileURLWithPath: folder + "/" + otherName))
        try Data((0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(
            to: URL(fileURLWithPath: folder + "/" + garbageName))
        try Data("hello".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
        try Data(otherBytes).write(to: URL(fileURLWithPath: folder + "/" + mismatchName))
        try Data(strangerBytes).write(to: URL(fileURLWithPath: directory.sub("x.tkdelta")))
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/" + linkName, withDestinationPath: directory.sub("x.tkdelta"))
        let outsideBefore = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()

        #expect(FolderTransport.replica(fromFileName: "../x.tkdelta") == nil)
        #expect(FolderTransport.replica(fromFileName: "../" + otherName) == nil)
        #expect(FolderTransport.replica(fromFileName: otherName.uppercased()) == nil)
        #expect(FolderTransport.replica(fromFileName: otherName) == other.replicaID)

        let transport = try FolderTransport(path: folder, store: store)
        let listing = try FolderFiles.names(in: folder) + ["../x.tkdelta"]  // a crafted listing entry
        let report = try transport.sync(names: listing)
        let skipped = Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.name, "\($0)") })
        #expect(
            Set(skipped.keys) == [
                otherName, garbageName, "notes.txt", mismatchName, linkName, "../x.tkdelta",
            ])
        #expect(skipped[otherName]!.contains("CRC-32") || skipped[otherName]!.contains("cut short"))
        #expect(skipped[mismatchName]!.contains("not the"))
        #expect(skipped[linkName]!.contains("symlink"))
        #expect(skipped["../x.tkdelta"]!.contains("not a sync file name"))
        #expect(report.applied.isEmpty)
        #expect(try store.profiles().isEmpty)  // nothing from the bad files, nothing from outside
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == outsideBefore)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.sub("x.tkdelta"))) == Data(strangerBytes))

        // The half-written file, once complete, is applied on the next sync.
        try Data(otherBytes).write(to: URL(fileURLWithPath: folder + "/" + otherName))
        let retry = try transport.sync()
        #expect(retry.applied.map(\.name) == [otherName])
        #expect(try store.profiles() == [profile("user")])
    }

    @Test func aNewReplicaWaitsForAFullerDeltaInsteadOfApplyingAGap() throws {
        let directory = TemporaryDirectory()
        let folder = directory.folder("shared")
        let a = try directory.store("a")
        let b = try directory.store("b")
        try a.edit(profile("user"), catalog: letterTabs, .move(tab("e"), to: 0))
        try FolderTransport(path: folder, store: a).sync()
        try FolderTransport(path: folder, store: b).sync()
        try a.edit(profile("user"), catalog: letterTabs, .setHidden(tab("b"), true))
        try FolderTransport(path: folder, store: a).sync()  // a delta past b's vector
        let c = try directory.store("c")
        let first = try FolderTransport(path: folder, store: c).sync()
        #expect(first.skipped.contains { if case .missingHistory = $0.reason { true } else { false } })
        for store in [a, b, c, a, b, c] { try FolderTransport(path: folder, store: store).sync() }
        #expect(try documentBytes(c) == documentBytes(a))
        #expect(try documentBytes(b) == documentBytes(a))
    }
}
