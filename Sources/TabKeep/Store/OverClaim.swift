/// Proof, found by an exchange, that a version vector claimed more than its store holds, and
/// what the store did about it.
///
/// ```swift
/// let applied = try store.apply(delta, from: sender)
/// for claim in applied.overClaims { print(claim) }   // the profile is exchanged in full next
/// ```
///
/// An over-claim silently loses edits forever: a peer that believes it holds a replica's edits
/// up to n never asks for them. A replica is the authority on itself, so a claim about a replica
/// past what that replica says it has issued proves a bad vector (found by that replica, the
/// authority on itself); so do equal vectors over different document states, a vector beside no
/// document at all, and a peer whose vector covers this store's yet whose documents still differ
/// once what it sent is merged. TabKeep never raises its own entry from a peer, drops the bad
/// claim, rebuilds its own vector of the profile from the dots it holds where it may be the one
/// that over-claimed (an under-claim is always safe), and exchanges the profile in full both ways.
public struct OverClaim: Hashable, Sendable, CustomStringConvertible {
    /// What the exchange found.
    public enum Kind: Hashable, Sendable {
        /// The peer's vector claims this store's own replica up to `claimed`, past the `issued`
        /// sequence this store has written: the claim is dropped.
        case peerClaimsThisReplica(claimed: UInt64, issued: UInt64)
        /// Both vectors of the profile are equal but the document states differ (their digests
        /// are `digest` here and `peerDigest` there): one of them claims what its store lacks, so
        /// this store's vector is rebuilt from the dots it holds.
        case equalVectorsOverDifferentContents(digest: UInt32, peerDigest: UInt32)
        /// The peer's vector covers this store's, so what it sent past this store's vector should
        /// have made the two documents states equal, yet their digests still differ (`digest` here
        /// after merging, `peerDigest` there): the peer claims entries it lacks (or this store
        /// does). This store's vector is rebuilt from the dots it holds, the peer's is not taken,
        /// and the profile goes whole in the answer, within the same exchange.
        case coveringVectorOverDifferentContents(digest: UInt32, peerDigest: UInt32)
        /// The peer's vector names replicas (`replicas` of them) but its digest is that of no
        /// documents at all: every claimed entry would be held or beaten by one held, so a store
        /// holding none claims what it lacks. The claim is not taken and the profile goes whole.
        case peerVectorOverNoDocuments(replicas: Int)
        /// This store's vector names replicas (`replicas` of them) but it holds no document of
        /// the profile: it claims what it lacks (a claim taken before it could be proven), so the
        /// vector is rebuilt from the dots it holds and the profile goes whole.
        case vectorOverNoDocuments(replicas: Int)
    }

    /// The profile whose vector was wrong.
    public var profile: ProfileID
    /// This store's replica.
    public var replica: ReplicaID
    /// The other side of the exchange (the sender of the message that showed it), when known.
    public var peer: ReplicaID?
    /// What was found.
    public var kind: Kind

    /// A finding of `kind` in `profile`, between this store's `replica` and `peer`.
    public init(profile: ProfileID, replica: ReplicaID, peer: ReplicaID?, kind: Kind) {
        self.profile = profile
        self.replica = replica
        self.peer = peer
        self.kind = kind
    }

    /// A sentence naming the profile, the replicas and the claim.
    public var description: String {
        let peer = self.peer.map { "replica \($0)" } ?? "the sender"
        switch kind {
        case .peerClaimsThisReplica(let claimed, let issued):
            return "profile \"\(profile)\": \(peer) claims this replica (\(replica)) up to sequence "
                + "\(claimed), past the \(issued) it has issued; the claim was dropped and the profile is "
                + "exchanged in full"
        case .equalVectorsOverDifferentContents(let digest, let peerDigest):
            return "profile \"\(profile)\": this store (\(replica)) and \(peer) have equal vectors "
                + "but different documents (digest \(hex(digest)) here, \(hex(peerDigest)) there); the "
                + "vector was rebuilt from the dots held and the profile is exchanged in full"
        case .coveringVectorOverDifferentContents(let digest, let peerDigest):
            return
                "profile \"\(profile)\": the vector of \(peer) covers this store's (\(replica)), but after "
                + "taking what it sent the documents still differ (digest \(hex(digest)) here, "
                + "\(hex(peerDigest)) there); the vector was rebuilt from the dots held and the profile "
                + "is sent whole"
        case .peerVectorOverNoDocuments(let replicas):
            return "profile \"\(profile)\": \(peer) claims entries of \(replicas) replica(s) but holds no "
                + "document of it; the claim was dropped and the profile is exchanged in full"
        case .vectorOverNoDocuments(let replicas):
            return "profile \"\(profile)\": this store (\(replica)) claimed entries of \(replicas) "
                + "replica(s) but held no document of it; the vector was rebuilt from the dots held and "
                + "the profile is exchanged in full"
        }
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}

/// What ``TabKeepStore/apply(_:from:maxDrift:)`` did.
public struct DeltaApplication: Hashable, Sendable {
    /// The documents whose stored value changed.
    public var changed: [DocumentKey]
    /// The bad claims proven, in profile order.
    public var overClaims: [OverClaim]
    /// The profiles whose section was not trusted (every profile of ``overClaims``, and those
    /// where this store's entry of the sender was past what the sender says it has issued and
    /// was rebuilt from the dots held), in profile order: the next message sends them whole.
    public var untrusted: [ProfileID]

    /// A result of `changed` documents, `overClaims` found and `untrusted` profiles.
    public init(changed: [DocumentKey], overClaims: [OverClaim], untrusted: [ProfileID]) {
        self.changed = changed
        self.overClaims = overClaims
        self.untrusted = untrusted
    }
}
