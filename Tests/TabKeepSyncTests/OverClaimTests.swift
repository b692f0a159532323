import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

/// A version vector that claims more than its store holds (a buggy app version, a folder file
/// rewritten by something else, a hand-built message) must never make a person's edits vanish:
/// a replica is the authority on itself, and an exchange that finds a bad claim repairs it.
@Suite struct OverClaimTests {
    let alice = profile("alice")
    let inbox = tab("c")

    /// A reply from a replica nobody knows, claiming `replica` of alice up to `sequence`.
    func bogusReply(claiming replica: ReplicaID, upTo sequence: UInt64) -> SyncMessage {
        SyncMessage(
            kind: .reply, sender: ReplicaID(rawValue: 0xaa), scope: .only([alice]),
            sections: [
                ProfileDelta(
                    profile: alice, vector: VersionVector([replica: sequence]), base: VersionVector(),
                    documents: [])
            ])
    }

    func issued(_ store: TabKeepStore) throws -> UInt64 {
        try store.versionVectors(.only([alice]))[alice]?[store.replicaID] ?? 0
    }

    @Test(arguments: [false, true])
    func aClaimBeyondWhatAReplicaIssuedNeverDropsItsEdits(replierFirst: Bool) throws {
        let directory = TemporaryDirectory()
        let (a, b) = (try directory.store("a"), try directory.store("b"))
        try a.edit(alice, catalog: letterTabs, .addToBadge(inbox, 1))
        try sync(a, b)
        // B takes a reply that claims A's edits of alice up to 1000.
        let bogus = try SyncMessage(decoding: bogusReply(claiming: a.replicaID, upTo: 1000).encoded())
        try SyncSession(store: b, scope: .only([alice])).receive(bogus)
        for _ in 0..<5 { try a.edit(alice, catalog: letterTabs, .addToBadge(inbox, 1)) }
        #expect(try issued(a) == 6)
        var reports: [SyncReport] = []
        for _ in 0..<2 { reports.append(replierFirst ? try sync(b, a) : try sync(a, b)) }
        for store in [a, b] {
            #expect(try store.layout(alice, catalog: letterTabs).badges[inbox] == 6)
        }
        #expect(try issued(a) == 6, "A's own sequence never jumps")
        try a.edit(alice, catalog: letterTabs, .addToBadge(inbox, 1))
        #expect(try issued(a) == 7)
        try sync(a, b)
        #expect(try b.layout(alice, catalog: letterTabs).badges[inbox] == 7)
        #expect(try b.verify().problems.isEmpty)
        // The bad claim is reported by A, the authority on itself, naming B and the claim.
        let claims = reports.flatMap(\.overClaims)
        #expect(
            claims == [
                OverClaim(
                    profile: alice, replica: a.replicaID, peer: b.replicaID,
                    kind: .peerClaimsThisReplica(claimed: 1000, issued: 6))
            ], "\(claims)")
        #expect(
            claims.first?.description.contains(
                "replica \(b.replicaID) claims this replica (\(a.replicaID)) up to sequence 1000, past the 6")
                == true)
        #expect(try sync(a, b).overClaims.isEmpty, "a repaired pair finds nothing more")
    }

    @Test func equalVectorsOverDifferentDocumentsAreFoundByTheDigestAndRepaired() throws {
        let directory = TemporaryDirectory()
        let (a, b, c) = (try directory.store("a"), try directory.store("b"), try directory.store("c"))
        try a.edit(alice, catalog: letterTabs, .addToBadge(inbox, 1))
        try sync(a, b)
        try c.edit(alice, catalog: letterTabs, .addToBadge(inbox, 10))
        try sync(b, c)
        // A takes a claim of C's one edit without the edit: no replica claims more than C issued,
        // and A's vector now equals B's over different documents.
        try SyncSession(store: a, scope: .only([alice])).receive(bogusReply(claiming: c.replicaID, upTo: 1))
        #expect(try a.versionVectors()[alice] == b.versionVectors()[alice])
        #expect(try a.layout(alice, catalog: letterTabs).badges[inbox] == 1)
        let report = try sync(a, b)
        #expect(try a.layout(alice, catalog: letterTabs).badges[inbox] == 11)
        #expect(try documentBytes(a) == documentBytes(b))
        // Both sides find it: B in A's request, A in B's reply.
        #expect(Set(report.overClaims.map(\.replica)) == [a.replicaID, b.replicaID], "\(report.overClaims)")
        for claim in report.overClaims {
            if case .equalVectorsOverDifferentContents(let here, let there) = claim.kind {
                #expect(here != there)
            } else {
                Issue.record("expected a digest mismatch, found \(claim)")
            }
        }
        #expect(try sync(a, b).overClaims.isEmpty)
        for store in [a, b] { #expect(try store.verify().problems.isEmpty) }
    }

    @Test func storesThatAgreeExchangeOnlyTheDigestsMoreAndFindNothing() throws {
        let directory = TemporaryDirectory()
        let (a, b) = (try directory.store("a"), try directory.store("b"))
        try a.edit(alice, catalog: letterTabs, .addToBadge(inbox, 1))
        try b.edit(profile("bob"), catalog: letterTabs, .setHidden(tab("a"), true))
        #expect(try sync(a, b).overClaims.isEmpty)
        let report = try sync(b, a)
        #expect(report.overClaims.isEmpty)
        #expect(report.documentsToFirst == 0 && report.documentsToSecond == 0)
    }

    @Test func aFolderFileThatOverClaimsNeverDropsEdits() throws {
        let directory = TemporaryDirectory()
        let folder = directory.folder("shared")
        let (a, b) = (try directory.store("a"), try directory.store("b"))
        let transports = try [a, b].map { try FolderTransport(path: folder, store: $0, profiles: [alice]) }
        try a.edit(alice, catalog: letterTabs, .addToBadge(inbox, 1))
        for transport in transports { try transport.sync() }
        for transport in transports { try transport.sync() }
        // A file rewritten by something else claims A's edits up to 1000.
        let bogus = bogusReply(claiming: a.replicaID, upTo: 1000)
        try Data(bogus.encoded()).write(
            to: URL(fileURLWithPath: folder + "/" + FolderTransport.fileName(for: bogus.sender)))
        var reports = [try transports[1].sync(), try transports[0].sync()]
        for _ in 0..<5 { try a.edit(alice, catalog: letterTabs, .addToBadge(inbox, 1)) }
        for _ in 0..<2 {
            for transport in transports { reports.append(try transport.sync()) }
        }
        for store in [a, b] {
            #expect(try store.layout(alice, catalog: letterTabs).badges[inbox] == 6)
            #expect(try store.verify().problems.isEmpty)
        }
        #expect(try issued(a) == 6, "A's own sequence never jumps")
        let claims = reports.flatMap(\.overClaims)
        #expect(
            claims.contains {
                $0.profile == alice && $0.replica == a.replicaID
                    && $0.kind == .peerClaimsThisReplica(claimed: 1000, issued: 1)
            }, "\(claims)")
        #expect(reports.allSatisfy { $0.skipped.isEmpty })
    }

    /// Three stores: C's badge edit reached A; B holds a document of alice (its own edit, which
    /// A has too) or nothing, and then takes a claim of C's edits up to `upTo` without them.
    func claimOfAThirdReplica(upTo sequence: UInt64, bHoldsADocument: Bool, in directory: TemporaryDirectory)
        throws -> (a: TabKeepStore, b: TabKeepStore, c: TabKeepStore)
    {
        let (a, b, c) = (try directory.store("a"), try directory.store("b"), try directory.store("c"))
        if bHoldsADocument {
            try b.edit(alice, catalog: letterTabs, .setHidden(tab("a"), true))
            try sync(a, b)
        }
        try c.edit(alice, catalog: letterTabs, .addToBadge(inbox, 6))
        try sync(a, c)
        try SyncSession(store: b, scope: .only([alice])).receive(
            SyncMessage(decoding: bogusReply(claiming: c.replicaID, upTo: sequence).encoded()))
        #expect(try b.layout(alice, catalog: letterTabs).badges[inbox] == nil)
        return (a, b, c)
    }

    /// After the exchange: B shows C's badge, both hold the same documents, both verify.
    func expectTheEditReachedB(_ a: TabKeepStore, _ b: TabKeepStore) throws {
        #expect(try b.layout(alice, catalog: letterTabs).badges[inbox] == 6)
        #expect(try documentBytes(a) == documentBytes(b))
        for store in [a, b] { #expect(try store.verify().problems.isEmpty) }
    }

    /// A replier whose vector covers the requester's sends what the requester lacks; if the two
    /// still differ after that, the replier claimed what it lacks, and the requester's final
    /// carries the profile whole: one exchange, not the next, brings the edit over.
    @Test func aReplierWhoseVectorCoversTheRequestersButLacksAnEditGetsItInTheSameExchange() throws {
        let directory = TemporaryDirectory()
        let (a, b, _) = try claimOfAThirdReplica(upTo: 113, bHoldsADocument: true, in: directory)
        let report = try sync(a, b)
        try expectTheEditReachedB(a, b)
        #expect(
            report.overClaims.contains {
                if case .coveringVectorOverDifferentContents = $0.kind { return $0.replica == a.replicaID }
                return false
            }, "\(report.overClaims)")
    }

    /// A store holding no document of a profile cannot have seen any entry of it: a vector
    /// beside no documents is refused by the peer (which sends the profile whole) and rebuilt
    /// by the store itself, whichever side asks.
    @Test(arguments: [false, true])
    func aVectorOverNoDocumentsIsNotTakenAndIsRebuilt(claimerAsks: Bool) throws {
        let directory = TemporaryDirectory()
        let (a, b, c) = try claimOfAThirdReplica(upTo: 5, bHoldsADocument: false, in: directory)
        let report = claimerAsks ? try sync(b, a) : try sync(a, b)
        try expectTheEditReachedB(a, b)
        #expect(try b.versionVectors()[alice]?[c.replicaID] == 1, "the claim of 5 is gone: C issued 1")
        #expect(
            report.overClaims.contains {
                if case .peerVectorOverNoDocuments = $0.kind { return true }
                return false
            }, "\(report.overClaims)")
        #expect(
            report.overClaims.contains {
                if case .vectorOverNoDocuments = $0.kind { return $0.replica == b.replicaID }
                return false
            }, "\(report.overClaims)")
    }

    /// A replier that claims a replica past the request without sending one entry of it proves
    /// nothing: the final sends that replica's entries back, so a claim passed on from elsewhere
    /// loses nothing the requester holds, even when neither vector covers the other.
    @Test func aClaimNothingInTheReplyProvesIsAnsweredWithThatReplicasEntries() throws {
        let directory = TemporaryDirectory()
        let (a, b, _) = try claimOfAThirdReplica(upTo: 102, bHoldsADocument: true, in: directory)
        try a.edit(alice, catalog: letterTabs, .addToBadge(tab("a"), 1))  // A is ahead of B too
        try b.edit(alice, catalog: letterTabs, .addToBadge(tab("b"), 1))  // and B of A
        try sync(a, b)
        try expectTheEditReachedB(a, b)
    }

    /// A request proves nothing it claims of a third replica: a replier that holds that replica's
    /// entries and other documents than the requester sends them, so a requester that took an
    /// inflated claim gets the edit it lacks in the same exchange.
    @Test func aRequestClaimingAThirdReplicaPastTheReplierGetsThatReplicasEntries() throws {
        let directory = TemporaryDirectory()
        let (a, b, _) = try claimOfAThirdReplica(upTo: 113, bHoldsADocument: true, in: directory)
        try sync(b, a)
        try expectTheEditReachedB(a, b)
    }

    /// The folder's logs are each cut past what the other logs claim, so a file claiming a third
    /// replica's edits it lacks is taken up by every store that reads it; the digests in the
    /// logs find it within a few rounds (here the covering vector, or equal vectors once both
    /// claim the same) and the edit reaches every store.
    @Test func aFolderLogClaimingAThirdReplicaWithoutItsEntriesLosesNoEdit() throws {
        let directory = TemporaryDirectory()
        let folder = directory.folder("shared")
        let (a, b, c) = (try directory.store("a"), try directory.store("b"), try directory.store("c"))
        try b.edit(alice, catalog: letterTabs, .setHidden(tab("a"), true))
        try c.edit(alice, catalog: letterTabs, .addToBadge(inbox, 6))
        try sync(a, c)
        try a.edit(alice, catalog: letterTabs, .addToBadge(tab("a"), 1))  // neither vector covers the other
        let transports = try [a, b].map { try FolderTransport(path: folder, store: $0, profiles: [alice]) }
        // A file written by something else claims C's edits of alice up to 1000, with none of them.
        let bogus = bogusReply(claiming: c.replicaID, upTo: 1000)
        try Data(bogus.encoded()).write(
            to: URL(fileURLWithPath: folder + "/" + FolderTransport.fileName(for: bogus.sender)))
        for _ in 0..<3 {
            for transport in transports { try transport.sync() }
        }
        try expectTheEditReachedB(a, b)
    }
}
