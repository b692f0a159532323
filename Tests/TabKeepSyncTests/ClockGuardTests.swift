import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

@Suite struct ClockGuardTests {
    /// A message (a final one unless `kind` says otherwise) from a device whose clock runs
    /// `ahead` milliseconds fast.
    func messageFromTheFuture(ahead: UInt64, kind: SyncMessage.Kind = .final) throws -> [UInt8] {
        let future = HybridLogicalClock.wallMilliseconds() + ahead
        var device = Replica(
            id: ReplicaID(rawValue: 0xF0F0),
            clock: HybridLogicalClock(last: Stamp(milliseconds: future, counter: 0)))
        var document = TabBarDocument()
        try document.apply(.move(tab("g"), to: 0), catalog: letterTabs, by: &device)
        let message = SyncMessage(
            kind: kind, sender: device.id, scope: .all,
            sections: [
                ProfileDelta(
                    profile: profile("user"), vector: VersionVector([device.id: device.sequence]),
                    base: VersionVector(),
                    documents: [
                        DocumentDelta(
                            key: DocumentKey(profile: profile("user"), bar: .main), document: document)
                    ])
            ])
        return message.encoded()
    }

    @Test func aFarFutureStampIsRefusedAndTheLocalClockIsUnchanged() throws {
        let directory = TemporaryDirectory()
        let store = try directory.store("store")
        try store.edit(profile("user"), catalog: letterTabs, .setHidden(tab("b"), true))
        let clock = try storedClock(store)
        let before = try recordChecksum(store)
        let bytes = try messageFromTheFuture(ahead: 3_600_000)
        #expect {
            try SyncSession(store: store).receive(SyncMessage(decoding: bytes))
        } throws: { error in
            guard case .clockDrift(let ahead, let limit) = error as? SyncError else { return false }
            return ahead > 3_500_000 && limit == 300_000 && "\(error)".contains("nothing was applied")
        }
        #expect(try storedClock(store) == clock)
        #expect(try recordChecksum(store) == before)
        try store.edit(profile("user"), catalog: letterTabs, .setHidden(tab("c"), true))
        let newest = try store.document(profile("user"))!.maxStamp.milliseconds
        #expect(newest < HybridLogicalClock.wallMilliseconds() + 60_000)
    }

    @Test func theDriftLimitIsConfigurable() throws {
        let directory = TemporaryDirectory()
        let store = try directory.store("store")
        let bytes = try messageFromTheFuture(ahead: 600_000)
        #expect(throws: SyncError.self) {
            try SyncSession(store: store).receive(SyncMessage(decoding: bytes))
        }
        let receipt = try SyncSession(store: store, maxDrift: .seconds(3_600)).receive(
            SyncMessage(decoding: bytes))
        #expect(receipt.changed == [DocumentKey(profile: profile("user"), bar: .main)])
    }

    @Test func aFolderFileFromTheFutureIsSkippedNamingItAndTheOtherFilesStillApply() throws {
        let directory = TemporaryDirectory()
        let folder = directory.folder("shared")
        let store = try directory.store("mine")
        let other = try directory.store("other")
        try other.edit(profile("friend"), catalog: letterTabs, .setHidden(tab("d"), true))
        try FolderTransport(path: folder, store: other).sync()
        let future = FolderTransport.fileName(for: ReplicaID(rawValue: 0xF0F0))
        try FolderFiles.replace(
            future, in: folder, with: messageFromTheFuture(ahead: 3_600_000, kind: .reply))

        let report = try FolderTransport(path: folder, store: store).sync()
        #expect(report.applied.map(\.name) == [FolderTransport.fileName(for: other.replicaID)])
        #expect(report.skipped.map(\.name) == [future])
        let skipped = try #require(report.skipped.first)
        guard case .clockDrift(let ahead, let limit) = skipped.reason else {
            Issue.record("skipped for another reason: \(skipped)")
            return
        }
        #expect(ahead > 3_500_000 && limit == 300_000)
        #expect(
            "\(skipped)".hasPrefix("\(future): sync message refused: entries are stamped")
                && "\(skipped)".contains("nothing was applied"), "\(skipped)")
        // Nothing of the future file: not its document, not its replica, not its clock.
        #expect(try store.document(profile("user")) == nil)
        #expect(try store.document(profile("friend")) == other.document(profile("friend")))
        #expect(try store.versionVectors().values.allSatisfy { $0[ReplicaID(rawValue: 0xF0F0)] == 0 })
        try store.edit(profile("friend"), catalog: letterTabs, .setHidden(tab("c"), true))
        let newest = try store.document(profile("friend"))!.maxStamp.milliseconds
        #expect(newest < HybridLogicalClock.wallMilliseconds() + 60_000)

        // The file stays and is refused again; a transport allowing two hours applies it.
        let again = try FolderTransport(path: folder, store: store).sync()
        #expect(again.skipped.map(\.name) == [future])
        let looser = try FolderTransport(path: folder, store: store, maxDrift: .seconds(7_200)).sync()
        #expect(looser.skipped.isEmpty, "\(looser.skipped)")
        #expect(looser.applied.contains { $0.name == future && $0.changed.count == 1 })
        #expect(try store.document(profile("user")) != nil)
    }
}
