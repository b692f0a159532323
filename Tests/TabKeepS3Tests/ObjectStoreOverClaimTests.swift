import Foundation
import TabKeep
import TabKeepSync
import TabKeepTestSupport
import Testing

@testable import TabKeepS3

/// An object is a message: one that claims more than its writer holds gets the folder transport's
/// repair, through the object store too (issue 26's scenario, on SeaweedFS).
@Suite struct ObjectStoreOverClaimTests {
    @Test func anObjectClaimingAReplicasEditsPastWhatItIssuedNeverDropsThem() async throws {
        let server = try await SeaweedFS.server()
        let bucket = try await server.bucket()
        let directory = TemporaryDirectory()
        let (phone, tablet) = (try directory.store("phone"), try directory.store("tablet"))
        let alice = profile("alice")
        let prefix = "users/alice/"
        let transports = try [phone, tablet].map {
            try ObjectStoreTransport(
                bucket: bucket, prefix: prefix, store: $0, profiles: [alice], client: server.client())
        }
        try await phone.edit(alice, catalog: letterTabs, .addToBadge(tab("a"), 1))
        for transport in transports { _ = try await transport.sync() }
        // Another writer's object claims the phone's edits of alice up to 1000.
        let bogus = SyncMessage(
            kind: .reply, sender: ReplicaID(rawValue: 0xaa), scope: .only([alice]),
            sections: [
                ProfileDelta(
                    profile: alice, vector: VersionVector([phone.replicaID: 1000]), base: VersionVector(),
                    documents: [])
            ])
        _ = try await server.client().putObject(
            bucket: bucket, key: prefix + FolderTransport.fileName(for: bogus.sender), bytes: bogus.encoded())
        let tabletReport = try await transports[1].sync()
        #expect(tabletReport.skipped.isEmpty, "\(tabletReport.skipped)")
        let phoneReport = try await transports[0].sync()
        #expect(
            phoneReport.overClaims.contains {
                $0.kind == .peerClaimsThisReplica(claimed: 1000, issued: 1) && $0.profile == alice
            }, "\(phoneReport.overClaims)")
        for _ in 0..<5 { try await phone.edit(alice, catalog: letterTabs, .addToBadge(tab("a"), 1)) }
        #expect(
            try phone.versionVectors(.only([alice]))[alice]?[phone.replicaID] == 6,
            "the phone's sequence jumped")
        for _ in 0..<2 {
            for transport in transports { _ = try await transport.sync() }
        }
        for store in [phone, tablet] {
            #expect(try store.layout(alice, catalog: letterTabs).badges[tab("a")] == 6)
            #expect(try store.verify().problems.isEmpty)
        }
    }
}
