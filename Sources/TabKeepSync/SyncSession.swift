public import TabKeep

/// One store's side of the three-message exchange, over any transport.
///
/// ```swift
/// let phone = SyncSession(store: phoneStore), tablet = SyncSession(store: tabletStore)
/// let request = try phone.request()                          // 1. phone → tablet: my vector
/// let reply = try tablet.respond(to: request)                 // 2. tablet → phone: what you lack + my vector
/// let final = try phone.receive(reply).reply!                 // 3. phone applies, → tablet: what you lack
/// try tablet.receive(final)                                   //    tablet applies
/// ```
///
/// Messages travel as ``SyncMessage/encoded()`` bytes. Responding applies nothing; each
/// ``receive(_:)`` applies one message in one write transaction, all or nothing. Merging is
/// commutative, associative and idempotent, so a duplicated, late or reordered message does no
/// harm, and a lost one only delays convergence until the next exchange.
public struct SyncSession: Sendable {
    /// The store this side reads and writes.
    public let store: TabKeepStore
    /// The profiles this side exchanges: nothing of another profile is read, sent or written, and
    /// a peer's request for more is narrowed to it.
    public let scope: ProfileScope
    /// How far ahead of this machine's clock incoming entries may be stamped (default 5 minutes).
    public var maxDrift: Duration

    /// A session for `store` over `scope` (every profile when not given), refusing entries
    /// stamped more than `maxDrift` ahead.
    public init(store: TabKeepStore, scope: ProfileScope = .all, maxDrift: Duration = .seconds(300)) {
        self.store = store
        self.scope = scope
        self.maxDrift = maxDrift
    }

    /// Step 1: a request carrying this store's version vector, and a digest of its documents, of
    /// every profile in the scope, with the change log's revision they were read at, asking for a
    /// format-5 exchange (see ``SyncMessage/requesterRevision``): the reply then lists only the
    /// profiles where the two stores differ. To ask a TabKeep that reads only format 4, set the
    /// request's ``SyncMessage/requesterRevision`` to nil (the reply then lists every profile); to
    /// ask one that reads only format 3, also set ``SyncMessage/omitsUnchanged`` to false.
    public func request() throws(SyncError) -> SyncMessage {
        let vectors: [(profile: ProfileID, vector: VersionVector, digest: UInt32)]
        let revision: UInt64
        do {
            (vectors, revision) = try store.versionVectorsDigestsAndRevision(scope)
        } catch {
            throw SyncError.wrap(error)
        }
        return SyncMessage(
            kind: .request, sender: store.replicaID, scope: scope,
            sections: vectors.map {
                ProfileDelta(
                    profile: $0.profile, vector: $0.vector, base: VersionVector(), documents: [],
                    digest: $0.digest)
            }, omitsUnchanged: true, requesterRevision: revision)
    }

    /// Step 2: the documents the requester lacks within both sides' scopes, with this store's
    /// vectors. Applies nothing. A format-5 request (``SyncMessage/requesterRevision``) gets a
    /// format-5 reply, which lists only the profiles whose vector or digest differ from the
    /// request's (and the ones going whole); a format-4 request gets a format-4 reply, a format 2
    /// or 3 request a format-3 one, and both of those list every profile.
    ///
    /// A profile whose request vector claims this replica past what it has issued, or equals
    /// this store's over different documents, or whose requester this store claims past what the
    /// requester says it has issued, goes whole (see `OverClaim` (TabKeep)).
    public func respond(to request: SyncMessage) throws(SyncError) -> SyncMessage {
        var ignored: [OverClaim] = []
        return try respond(to: request, reporting: &ignored)
    }

    /// ``respond(to:)``, adding the bad claims the request showed to `overClaims`.
    public func respond(to request: SyncMessage, reporting overClaims: inout [OverClaim]) throws(SyncError)
        -> SyncMessage
    {
        guard request.kind == .request else { throw .unexpectedKind(request.kind, expected: "a request") }
        guard request.sender != store.replicaID else { throw .fromThisReplica(request.sender) }
        let vectors = try request.sortedVectors()
        // Format 5: the requester knows which of its profiles changed since it asked, so a
        // profile both sides agree on needs no section. Format 4 and older: every profile goes
        // in, since the final answering the reply needs each vector. (A revision on a request
        // that omits nothing is not written, so it is not heeded here either.)
        let agreedLeftOut = request.omitsUnchanged && request.requesterRevision != nil
        var (reply, found) = try deltaMessage(
            kind: .reply, after: vectors, scope: narrowed(request.scope), checking: request.sender,
            peerDigests: request.sections.map(\.digest), omitsUnchanged: agreedLeftOut)
        reply.omitsUnchanged = request.omitsUnchanged || agreedLeftOut
        reply.requesterRevision = agreedLeftOut ? request.requesterRevision : nil
        overClaims += found
        return reply
    }

    /// Steps 3 and 4: applies a reply or a final message in one write transaction (only its
    /// sections within this side's scope). For a reply, the receipt carries the final message
    /// (the documents the replier lacks; every document of a profile where a bad claim was found)
    /// to send back. Bad claims found are dropped, repaired and listed in the receipt.
    @discardableResult
    public func receive(_ message: SyncMessage) throws(SyncError) -> SyncReceipt {
        guard message.kind != .request else {
            throw .unexpectedKind(message.kind, expected: "a reply or a final message")
        }
        _ = try message.sortedVectors()  // checked before anything is applied
        let applied = try apply(message)
        guard message.kind == .reply else {
            return SyncReceipt(changed: applied.changed, reply: nil, overClaims: applied.overClaims)
        }
        // The final answers what the replier proved: a replica it claims past the request
        // without carrying an entry of it is answered with every entry of that replica.
        let vectors = message.sections.map { (profile: $0.profile, vector: $0.provenVector) }
        // No digests: the replier compared the request's, and this side the reply's. A format-4
        // reply is answered by a final that leaves out the profiles both sides now agree on.
        let scope = narrowed(message.scope)
        let (final, _) = try deltaMessage(
            kind: .final, after: vectors, scope: scope, reading: try finalReading(message, within: scope),
            fullState: Set(applied.untrusted), withDigests: false, omitsUnchanged: message.omitsUnchanged)
        return SyncReceipt(changed: applied.changed, reply: final, overClaims: applied.overClaims)
    }

    /// The profiles the final answering `reply` reads, within `scope`. A format-5 reply lists only
    /// the profiles where the stores differed when the request was read: the final answers those,
    /// and every profile this store's change log shows changed since the request's revision (it
    /// sends them whole, as it knows only that the replier's state of them equalled the
    /// request). When the log no longer reaches back that far, the profiles changed since wait
    /// for the next exchange, which finds them different. Any other reply: the whole `scope`.
    private func finalReading(_ reply: SyncMessage, within scope: ProfileScope) throws(SyncError)
        -> ProfileScope
    {
        guard reply.omitsUnchanged, let revision = reply.requesterRevision else { return scope }
        var profiles = Set(reply.sections.map(\.profile))
        do {
            if let changed = try store.profilesChanged(after: revision) { profiles.formUnion(changed) }
        } catch {
            throw SyncError.wrap(error)
        }
        switch scope {
        case .all: return .only(profiles)
        case .only(let mine): return .only(mine.intersection(profiles))
        }
    }

    /// The scope both this side and the peer asked for.
    func narrowed(_ peer: ProfileScope) -> ProfileScope {
        switch (scope, peer) {
        case (.all, _): peer
        case (.only, .all): scope
        case (.only(let mine), .only(let theirs)): .only(mine.intersection(theirs))
        }
    }

    /// A message of everything this store has in `scope` (or only in `reading`, when given) past
    /// `base`, taken with its vectors and
    /// digests (unless not `withDigests`) in one snapshot; the profiles in `fullState` go whole,
    /// and with `checking`, each profile's `base` (a peer's vector, with `peerDigests`) is
    /// checked for bad claims first, the ones found returned beside the message.
    /// Every profile's section goes in, changed or not, so the receiver knows each vector —
    /// unless `omitsUnchanged` (a format-4 final): then a profile whose vector equals its `base`
    /// (once checked, and not going whole) has none.
    func deltaMessage(
        kind: SyncMessage.Kind, after base: [(profile: ProfileID, vector: VersionVector)],
        scope: ProfileScope, reading: ProfileScope? = nil,
        checking peer: ReplicaID? = nil, peerDigests: [UInt32?] = [], fullState: Set<ProfileID> = [],
        withDigests: Bool = true, omitsUnchanged: Bool = false
    ) throws(SyncError) -> (message: SyncMessage, overClaims: [OverClaim]) {
        let delta: StoreDelta
        do {
            delta = try store.delta(
                afterSorted: base, scope: reading ?? scope, includeUnchanged: !omitsUnchanged, checking: peer,
                peerDigests: peerDigests, fullState: fullState, withDigests: withDigests)
        } catch {
            throw SyncError.wrap(error)
        }
        return (
            SyncMessage(
                kind: kind, sender: store.replicaID, scope: scope, sections: delta.profiles,
                omitsUnchanged: omitsUnchanged),
            delta.overClaims
        )
    }

    /// ``deltaMessage(kind:after:scope:reading:checking:peerDigests:fullState:withDigests:omitsUnchanged:)`` past vectors given by
    /// profile, in any order.
    func deltaMessage(
        kind: SyncMessage.Kind, after base: [ProfileID: VersionVector], scope: ProfileScope,
        fullState: Set<ProfileID> = []
    ) throws(SyncError) -> SyncMessage {
        let sorted = base.map { (profile: $0.key, vector: $0.value) }.sorted { $0.profile < $1.profile }
        return try deltaMessage(kind: kind, after: sorted, scope: scope, fullState: fullState).message
    }

    /// Applies a message's sections within this side's scope, once each base is known to be
    /// covered, checking each section's vector against this store's (see `OverClaim` (TabKeep)).
    func apply(_ message: SyncMessage) throws(SyncError) -> DeltaApplication {
        guard message.sender != store.replicaID else { throw .fromThisReplica(message.sender) }
        let sections = message.sections.filter { scope.contains($0.profile) }
        do {
            return try store.apply(
                StoreDelta(profiles: sections), from: message.sender, maxDrift: maxDrift,
                skippingAgreed: message.omitsUnchanged && message.kind == .reply)
        } catch {
            throw SyncError.wrap(error)
        }
    }
}
