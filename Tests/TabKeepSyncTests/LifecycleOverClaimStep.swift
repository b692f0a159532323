import TabKeep
import Testing

@testable import TabKeepSync

/// The lifecycle scripts' "over-claim" step: a hand-built reply from a replica nobody knows,
/// claiming a random live replica's edits of a random profile far past what it has issued, as a
/// buggy app version or a rewritten folder file would. It carries no documents, so the model
/// does not move: the syncs that follow must still bring every store every edit.
extension ModelScenario {
    mutating func overClaim(on device: Int) throws {
        let who = profiles.randomElement(using: &random)!
        let claimed = stores.randomElement(using: &random)!.replicaID
        let issued = try stores[device].versionVectors(.only([who]))[who]?[claimed] ?? 0
        let sequence = issued + UInt64.random(in: 1...1_000, using: &random)
        let bogus = SyncMessage(
            kind: .reply, sender: ReplicaID(rawValue: UInt64.random(in: 1...UInt64.max, using: &random)),
            scope: .only([who]),
            sections: [
                ProfileDelta(
                    profile: who, vector: VersionVector([claimed: sequence]), base: VersionVector(),
                    documents: [])
            ])
        let receipt = try SyncSession(store: stores[device], scope: .only([who]))
            .receive(SyncMessage(decoding: bogus.encoded()))
        let own = try stores[device].versionVectors(.only([who]))[who]?[stores[device].replicaID] ?? 0
        if claimed == stores[device].replicaID {
            #expect(own == issued, "a peer never raises a store's own entry")
            #expect(
                receipt.overClaims.filter {
                    $0.kind == .peerClaimsThisReplica(claimed: sequence, issued: issued)
                }.count == 1, "a claim about this very replica is reported: \(receipt.overClaims)")
        }
        log.append("over-claim of \(claimed) in \(who) up to \(sequence), sent to \(device)")
    }
}
