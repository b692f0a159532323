import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

@Suite struct DeltaTests {
    /// A store holding `count` profiles (written as another device's edits, in one transaction),
    /// fully synced into a second store.
    func syncedPair(profiles count: Int, in directory: TemporaryDirectory) throws -> (
        TabKeepStore, TabKeepStore
    ) {
        let source = try directory.store("source-\(count)")
        let peer = try directory.store("peer-\(count)")
        var device = Replica(id: ReplicaID(rawValue: 0xD0D0))
        try source.importDocuments(mode: .merge) { add in
            for index in 0..<count {
                var document = TabBarDocument()
                try document.apply(.move(tab("c"), to: 0), catalog: letterTabs, by: &device)
                try document.apply(.setBadge(tab("a"), index % 7), catalog: letterTabs, by: &device)
                try add(DocumentKey(profile: profile("user-\(index)"), bar: .main), document)
            }
        }
        let report = try sync(source, peer)
        #expect(report.documentsToSecond == count)
        return (source, peer)
    }

    @Test func oneEditAfterAFullSyncOfTenThousandProfilesMakesAScopedMessageUnderOneKibibyte() throws {
        let directory = TemporaryDirectory()
        let (source, peer) = try syncedPair(profiles: 10_000, in: directory)
        try source.edit(profile("user-1234"), catalog: letterTabs, .move(tab("g"), to: 0))
        let scope = ProfileScope.only([profile("user-1234")])
        let reply = try SyncSession(store: source, scope: scope).respond(
            to: SyncSession(store: peer, scope: scope).request())
        #expect(reply.documents.map(\.key.profile) == [profile("user-1234")])
        #expect(reply.encoded().count < 1024)
        let delta = try source.delta(after: peer.versionVectors(), scope: .only([profile("user-1234")]))
        #expect(delta.rowsVisited <= 4)  // the new dots and the one document: no scan
        let report = try sync(source, peer, profiles: [profile("user-1234")])
        #expect(report.bytesExchanged < 3 * 1024)
        #expect(try documentBytes(source) == documentBytes(peer))
    }

    @Test func extractingADeltaVisitsAsManyRowsForTenTimesTheProfiles() throws {
        let directory = TemporaryDirectory()
        var visited: [Int] = []
        for count in [1_000, 10_000] {
            let (source, peer) = try syncedPair(profiles: count, in: directory)
            try source.edit(
                profile("user-7"), catalog: letterTabs, [.move(tab("g"), to: 0), .setBadge(tab("b"), 2)])
            let scope = ProfileScope.only([profile("user-7")])
            visited.append(try source.delta(after: peer.versionVectors(scope), scope: scope).rowsVisited)
        }
        #expect(visited[0] == visited[1])
        #expect(visited[1] < 10)
    }
}
