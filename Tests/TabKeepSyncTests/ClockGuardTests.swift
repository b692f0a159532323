import TabKeep
import Testing

@testable import TabKeepSync

@Suite struct ClockGuardTests {
    /// A reply from a device whose clock runs `ahead` milliseconds fast.
    func messageFromTheFuture(ahead: UInt64) throws -> [UInt8] {
        let future = HybridLogicalClock.wallMilliseconds() + ahead
        var device = Replica(
            id: ReplicaID(rawValue: 0xF0F0),
            clock: HybridLogicalClock(last: Stamp(milliseconds: future, counter: 0)))
        var document = TabBarDocument()
        try document.apply(.move(tab("g"), to: 0), catalog: sevenTabs, by: &device)
        let message = SyncMessage(
            kind: .final, sender: device.id, scope: .all,
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
        try store.edit(profile("user"), catalog: sevenTabs, .setHidden(tab("b"), true))
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
        try store.edit(profile("user"), catalog: sevenTabs, .setHidden(tab("c"), true))
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
}
