import LMDBKit

/// What a store has that a peer lacks, profile by profile: the low-level currency of sync.
public struct StoreDelta: Hashable, Sendable {
    /// One section per profile, in profile order.
    public var profiles: [ProfileDelta]
    /// Rows read to build the delta (dots scanned plus documents loaded): it grows with the
    /// change, not with the store. A measurement for this package's tests, not part of the
    /// delta: equality and hashing leave it out.
    package var rowsVisited: Int
    /// The bad claims found in the peer's vectors while the delta was cut for a sync (see
    /// ``OverClaim``); each of those profiles goes whole.
    public var overClaims: [OverClaim] = []

    /// A delta of `profiles`.
    public init(profiles: [ProfileDelta]) {
        self.init(profiles: profiles, rowsVisited: 0)
    }

    /// A delta of `profiles` that took `rowsVisited` rows to build.
    package init(profiles: [ProfileDelta], rowsVisited: Int) {
        self.profiles = profiles
        self.rowsVisited = rowsVisited
    }

    /// Every document of every section.
    public var documents: [DocumentDelta] { profiles.flatMap(\.documents) }

    /// Whether two deltas carry the same sections and findings (however many rows each took).
    public static func == (lhs: StoreDelta, rhs: StoreDelta) -> Bool {
        lhs.profiles == rhs.profiles && lhs.overClaims == rhs.overClaims
    }

    /// Hashes the sections and findings, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(profiles)
        hasher.combine(overClaims)
    }
}

/// One profile's part of a ``StoreDelta``.
public struct ProfileDelta: Hashable, Sendable {
    /// The profile.
    public var profile: ProfileID
    /// The sender's version vector of the profile when the delta was taken.
    public var vector: VersionVector
    /// The vector the delta was computed past: a receiver that has not reached it refuses it.
    public var base: VersionVector
    /// Each changed document of the profile, reduced to the entries past `base`, in key order.
    public var documents: [DocumentDelta]
    /// A digest of the sender's documents of the profile when `vector` was read, or nil when not
    /// known: a receiver whose vector equals `vector` over a different digest knows one of the
    /// two vectors claims what its store lacks (see ``OverClaim``).
    public var digest: UInt32?

    /// A section.
    public init(
        profile: ProfileID, vector: VersionVector, base: VersionVector, documents: [DocumentDelta],
        digest: UInt32? = nil
    ) {
        self.profile = profile
        self.vector = vector
        self.base = base
        self.documents = documents
        self.digest = digest
    }
}

extension ProfileDelta {
    /// The replicas the section claims past its base without carrying one entry of theirs past
    /// it. Nothing proves such a claim: an honest sender ahead on a replica has that replica's
    /// newer entries, or entries that beat them, so it may be an inflated vector passed on. A
    /// sync's final answers it as if the sender held none of that replica's entries: they go back
    /// with it, and a sender that lacked one takes it (merging an entry held changes nothing).
    package var unprovenReplicas: [ReplicaID] {
        var unproven: [ReplicaID] = []
        for element in vector.storage where element.sequence > base[element.replica] {
            let floor = base[element.replica]
            let carried = documents.contains { document in
                document.document.storage.contains {
                    $0.dot.replica == element.replica && $0.dot.sequence > floor
                }
            }
            if !carried { unproven.append(element.replica) }
        }
        return unproven
    }

    /// ``vector`` without its ``unprovenReplicas``: the vector a sync's final answers.
    package var provenVector: VersionVector {
        let unproven = unprovenReplicas
        if unproven.isEmpty { return vector }
        var proven = vector
        for replica in unproven { proven[replica] = 0 }
        return proven
    }
}

/// One document's part of a ``StoreDelta``.
public struct DocumentDelta: Hashable, Sendable {
    /// Which (profile, bar).
    public var key: DocumentKey
    /// The entries (a partial document), merged into the receiver's document.
    public var document: TabBarDocument

    /// The part `document` of the document at `key`.
    public init(key: DocumentKey, document: TabBarDocument) {
        self.key = key
        self.document = document
    }
}

/// How ``TabKeepStore/importDocuments(mode:catalogs:dryRun:sizeHint:maxDrift:_:)`` treats what the store holds.
public enum ImportMode: String, Hashable, Sendable, CaseIterable {
    /// Empty the store's documents first; the store then holds exactly the imported ones.
    case replace
    /// Merge each imported document into the stored one, entry by entry (as a sync would).
    case merge
}

/// What an import changed (or, in a dry run, would change).
public struct ImportReport: Hashable, Sendable {
    /// Documents the store did not have.
    public var added = 0
    /// Documents whose stored value changed.
    public var changed = 0
    /// Documents already identical.
    public var unchanged = 0
    /// Documents removed (replace mode only).
    public var removed = 0
    /// Catalogs registered.
    public var catalogs = 0
}

extension TabKeepStore {
    /// Everything of the profiles in `scope` that a peer with the per-profile vectors `peer` lacks;
    /// a profile the peer does not list is one it lacks entirely (everything of it is sent).
    ///
    /// A profile whose vector is past the peer's sends each of its documents reduced to the entries
    /// the peer lacks and the document's clear (a schema-6 store keeps no index of which bar holds
    /// which dot: a profile's few documents are read instead). A profile whose vector equals the
    /// peer's gets no section, unless `includeUnchanged` (a folder file, read by replicas that
    /// need every vector). Nothing outside `scope` is read.
    public func delta(
        after peer: [ProfileID: VersionVector], scope: ProfileScope = .all, includeUnchanged: Bool = false
    ) throws(TabKeepError) -> StoreDelta {
        let sorted = peer.map { (profile: $0.key, vector: $0.value) }.sorted { $0.profile < $1.profile }
        return try delta(afterSorted: sorted, scope: scope, includeUnchanged: includeUnchanged)
    }

    /// ``delta(after:scope:includeUnchanged:)`` with the peer's vectors as a list in strictly
    /// increasing profile order (as a sync message holds them), so the store's vectors, read in
    /// key order, are matched with the peer's in one walk instead of a dictionary per exchange.
    ///
    /// For a sync, `checking` names the peer, `peerDigests` (empty, or one per entry of `peer`)
    /// its digests, and each section carries this store's digest: a profile whose peer vector
    /// fails `checkClaims` (see ``OverClaim``), or that is in `fullState`,
    /// goes whole (an empty base); the findings are in the delta's ``StoreDelta/overClaims``.
    package func delta(
        afterSorted peer: [(profile: ProfileID, vector: VersionVector)], scope: ProfileScope = .all,
        includeUnchanged: Bool = false, checking peerReplica: ReplicaID? = nil, peerDigests: [UInt32?] = [],
        fullState: Set<ProfileID> = [], withDigests: Bool = false
    ) throws(TabKeepError) -> StoreDelta {
        precondition(
            zip(peer, peer.dropFirst()).allSatisfy { $0.profile < $1.profile },
            "peer vectors must be in strictly increasing profile order")
        precondition(peerDigests.isEmpty || peerDigests.count == peer.count, "one digest per peer vector")
        let own = replicaID
        return try read { txn in
            var rows = 0
            var sections: [ProfileDelta] = []
            var findings: [OverClaim] = []
            // With digests, each profile's comes from the same walk as its vector.
            let mine: [(profile: ProfileID, vector: VersionVector, digest: UInt32?)] =
                withDigests
                ? try readVectorsAndDigestsInOrder(txn, in: scope).map { ($0.profile, $0.vector, $0.digest) }
                : try readVectorsInOrder(txn, in: scope).map { ($0.profile, $0.vector, nil) }
            var mineIndex = 0
            var peerIndex = 0
            let empty = VersionVector()
            while mineIndex < mine.count || peerIndex < peer.count {
                // Walk both lists in profile order; a profile the peer holds and this store
                // lacks gets an empty section, which tells the peer to send it.
                let profile: ProfileID
                var now: VersionVector
                var base: VersionVector
                var peerDigest: UInt32?
                var ownDigest: UInt32?
                if peerIndex == peer.count
                    || (mineIndex < mine.count && mine[mineIndex].profile < peer[peerIndex].profile)
                {
                    (profile, now, base) = (mine[mineIndex].profile, mine[mineIndex].vector, empty)
                    ownDigest = mine[mineIndex].digest
                    mineIndex += 1
                } else if mineIndex == mine.count || peer[peerIndex].profile < mine[mineIndex].profile {
                    let entry = peer[peerIndex]
                    peerDigest = peerDigests.isEmpty ? nil : peerDigests[peerIndex]
                    peerIndex += 1
                    guard scope.contains(entry.profile) else { continue }
                    (profile, now, base) = (entry.profile, empty, entry.vector)
                } else {
                    (profile, now, base) = (
                        mine[mineIndex].profile, mine[mineIndex].vector, peer[peerIndex].vector
                    )
                    peerDigest = peerDigests.isEmpty ? nil : peerDigests[peerIndex]
                    ownDigest = mine[mineIndex].digest
                    mineIndex += 1
                    peerIndex += 1
                }
                // A profile this store has no vector of may still hold documents: read them.
                let digest = withDigests ? try ownDigest ?? documentDigest(txn, profile) : nil
                var untrusted = fullState.contains(profile)
                if let peerReplica {
                    let check = try checkClaims(
                        txn, profile, mine: now, theirs: base, theirDigest: peerDigest, own: own,
                        peer: peerReplica, digest: digest)
                    // This store's vector goes as stored (a reply writes nothing): the
                    // peer, the authority on itself, sees any claim about it past what it issued.
                    if check.untrusted { base = empty }
                    untrusted = untrusted || check.untrusted
                    findings += check.findings
                    // A request proves nothing it claims of a third replica: where it claims past
                    // this store over other documents, this store's entries of that replica go
                    // (a requester that lacked one takes it; merging one held changes nothing).
                    if !check.untrusted, peerDigest == nil || peerDigest != digest {
                        for element in base.storage
                        where element.replica != peerReplica && element.replica != own
                            && element.sequence > now[element.replica] && now[element.replica] > 0
                        {
                            base[element.replica] = 0
                        }
                    }
                }
                if fullState.contains(profile) { base = empty }
                // A profile going whole goes even when both vectors are empty: its section
                // tells the peer to repair.
                if now == base && !includeUnchanged && !untrusted { continue }
                // Where the vector holds a dot the peer lacks, every document of the profile: the
                // part of each is the entries the peer lacks and the clear (see `part(of:after:)`);
                // one without either stays home. Where it holds none, the peer lacks nothing.
                var documents: [DocumentDelta] = []
                if now.storage.contains(where: { $0.sequence > base[$0.replica] }) {
                    try forEachDocumentRecord(txn, of: profile) { keyBytes, value in
                        rows += 1
                        let key = try spaces.documentKey(from: keyBytes)
                        let part = try Self.part(ofStored: value, key, after: base)
                        if !part.isEmpty { documents.append(DocumentDelta(key: key, document: part)) }
                        return true
                    }
                }
                sections.append(
                    ProfileDelta(
                        profile: profile, vector: now, base: base, documents: documents,
                        digest: digest))
            }
            var delta = StoreDelta(profiles: sections, rowsVisited: rows)
            delta.overClaims = findings
            return delta
        }
    }

    /// The version vector and document digest of each profile in `scope`, in profile order, from
    /// one snapshot: what a sync request carries.
    package func versionVectorsAndDigests(_ scope: ProfileScope) throws(TabKeepError) -> [(
        profile: ProfileID, vector: VersionVector, digest: UInt32
    )] {
        return try read { txn in try readVectorsAndDigestsInOrder(txn, in: scope) }
    }

    /// ``versionVectorsAndDigests(_:)`` and the change log's revision, from one snapshot: what a
    /// format-5 sync request carries, so that the requester can tell afterwards which profiles
    /// changed since its vectors were read (``profilesChanged(after:)``).
    package func versionVectorsDigestsAndRevision(_ scope: ProfileScope) throws(TabKeepError) -> (
        vectors: [(profile: ProfileID, vector: VersionVector, digest: UInt32)], revision: UInt64
    ) {
        return try read { txn in (try readVectorsAndDigestsInOrder(txn, in: scope), try currentRevision(txn))
        }
    }

    /// The profiles of every document the change log records as changed after `revision`: a range
    /// scan of the log, so its cost grows with what changed since. Nil when the log cannot tell:
    /// it no longer holds the record right after `revision` (trimmed, or the store's log starts
    /// later), or the store's revision is behind `revision` (not the log it was read from).
    package func profilesChanged(after revision: UInt64) throws(TabKeepError) -> Set<ProfileID>? {
        try read { txn -> Set<ProfileID>? in
            let now = try currentRevision(txn)
            if now == revision { return [] }
            guard now > revision else { return nil }
            var profiles = Set<ProfileID>()
            var reachesBack = false
            try forEachChange(txn, after: revision) { number, value in
                if !reachesBack {
                    // Revisions are consecutive: a first record past revision + 1 means some are gone.
                    guard number == revision + 1 else { return false }
                    reachesBack = true
                }
                profiles.insert(try changedKey(value).profile)
                return true
            }
            return reachesBack ? profiles : nil
        }
    }

    /// The entries of `document` a peer at `peer` lacks, plus the document's clear: a tombstone
    /// is only valid (and only decodes) beside the clear whose context covers it, and a merged
    /// clear keeps one dot while its context grows (the context of a clear that lost to it, whose
    /// dot only the profile's vector remembers, see `keepClearDot`), so the clear always travels.
    static func part(of document: TabBarDocument, after peer: VersionVector) -> TabBarDocument {
        let part = document.delta(after: peer)
        guard let clear = document.entries.last, clear.key == .cleared, part.entries.last?.key != .cleared
        else { return part }
        return (try? TabBarDocument(entries: part.entries + [clear])) ?? part
    }

    /// ``part(of:after:)`` of the document stored under `key` as `bytes`, taken from the bytes
    /// (``SplicedEdit/part(of:after:)``), or by decoding them when they do not decode (which
    /// reports them).
    static func part(ofStored bytes: UnsafeRawBufferPointer, _ key: DocumentKey, after base: VersionVector)
        throws(TabKeepError) -> TabBarDocument
    {
        let stored = bytes.assumingMemoryBound(to: UInt8.self)
        if let part = SplicedEdit.part(of: stored, after: base) {
            assert(
                part == (try? TabBarDocument(decoding: stored)).map { Self.part(of: $0, after: base) },
                "a part taken from the bytes disagrees with the decoded document's")
            return part
        }
        do throws(DocumentDecodingError) {
            return Self.part(of: try TabBarDocument(decoding: stored), after: base)
        } catch {
            throw .corruptDocument(key, error)
        }
    }

    /// Merges a peer's delta in one write transaction: all or nothing. Each profile's section is
    /// applied only when this store has reached the section's base (else
    /// ``TabKeepError/missingHistory(_:replica:needed:have:)``), and then raises the profile's vector
    /// to the sender's, never this replica's own entry. Entries stamped more than `maxDrift` ahead
    /// of this machine's clock make the whole call fail with
    /// ``TabKeepError/clockDrift(aheadMilliseconds:limitMilliseconds:)``, before anything is written
    /// and without moving the local clock. Returns the changed keys.
    @discardableResult
    public func apply(_ delta: StoreDelta, maxDrift: Duration = .seconds(300)) throws(TabKeepError)
        -> [DocumentKey]
    {
        try apply(delta, sender: nil, maxDrift: maxDrift).changed
    }

    /// ``apply(_:maxDrift:)`` of a delta written by replica `sender`, checking each section's
    /// vector against what this store knows (see ``OverClaim``).
    ///
    /// A section whose vector claims this replica past what it has issued, or equals this
    /// store's over a different ``ProfileDelta/digest``, or whose sender this store claims past
    /// what the sender says it has issued, is not trusted: its documents are merged (when this
    /// store has reached its base; otherwise they wait for the next exchange), the vector is
    /// raised only as far as they prove, and this store's vector of the profile is rebuilt from
    /// the dots it holds where this store may be the one that over-claimed. The first two are
    /// proof and are returned as findings; the third is no proof (the message may be older than
    /// what this store has learned since) and is repaired silently. Every untrusted profile is
    /// listed, for the caller to send whole.
    public func apply(_ delta: StoreDelta, from sender: ReplicaID, maxDrift: Duration = .seconds(300))
        throws(TabKeepError) -> DeltaApplication
    {
        try apply(delta, sender: Optional(sender), maxDrift: maxDrift)
    }

    /// `apply(_:from:maxDrift:)` that, with `skippingAgreed`, passes over each section the sender
    /// marked unchanged (its vector equal to its base, no documents) whose vector equals this
    /// store's: the sender compared digests when it cut the delta (sync format 4), and nothing
    /// else of such a section could change the store. The plain apply is its slow twin.
    package func apply(
        _ delta: StoreDelta, from sender: ReplicaID, maxDrift: Duration, skippingAgreed: Bool
    ) throws(TabKeepError) -> DeltaApplication {
        try apply(delta, sender: Optional(sender), maxDrift: maxDrift, skippingAgreed: skippingAgreed)
    }

    private func apply(
        _ delta: StoreDelta, sender: ReplicaID?, maxDrift: Duration, skippingAgreed: Bool = false
    ) throws(TabKeepError)
        -> DeltaApplication
    {
        let newest = delta.documents.map(\.document.maxStamp).max() ?? .zero
        try Self.checkDrift(newest, maxDrift: maxDrift)
        for section in delta.profiles {
            for document in section.documents where document.key.profile != section.profile {
                throw .failed(
                    "a delta section of profile \"\(section.profile)\" holds a document of \"\(document.key.profile)\""
                )
            }
        }
        let (changed, overClaims, repaired, revisions):
            ([DocumentKey], [OverClaim], [ProfileID], ClosedRange<UInt64>?) = try write {
                txn in
                var writer = try loadWriteState(txn)
                var raises = VersionRaises()
                var changed: [DocumentKey] = []
                var overClaims: [OverClaim] = []
                var repaired: [ProfileID] = []
                let locals = try readVectors(txn, of: delta.profiles.map(\.profile))
                for (section, stored) in zip(delta.profiles, locals) {
                    if skippingAgreed && section.documents.isEmpty && section.vector == section.base
                        && section.vector == stored
                    {
                        continue
                    }
                    let check = try checkClaims(
                        txn, section.profile, mine: stored, theirs: section.vector,
                        theirDigest: section.digest, own: writer.id, peer: sender)
                    var local = stored
                    if let proven = check.proven {
                        try replaceVector(txn, section.profile, with: proven)
                        local = proven
                    }
                    overClaims += check.findings
                    var trusted = !check.untrusted
                    // A vector over no documents claims what this store lacks (taken from a peer
                    // before anything proved it): rebuilt from the dots held, which are none.
                    if !local.isEmpty, section.vector != local || !section.documents.isEmpty,
                        try !holdsDocuments(txn, section.profile)
                    {
                        overClaims.append(
                            OverClaim(
                                profile: section.profile, replica: writer.id, peer: sender,
                                kind: .vectorOverNoDocuments(replicas: local.count)))
                        local = try rebuildVector(txn, section.profile, own: writer.id, from: local)
                        trusted = false
                    }
                    if !trusted { repaired.append(section.profile) }
                    if let element = section.base.storage.first(where: {
                        local[$0.replica] < $0.sequence
                    }) {
                        // An untrusted section's base may be past a vector just rebuilt: its
                        // entries wait for the full exchange the finding asks for.
                        guard trusted else { continue }
                        throw TabKeepError.missingHistory(
                            section.profile, replica: element.replica, needed: element.sequence,
                            have: local[element.replica])
                    }
                    for document in section.documents {
                        let spliced = try mergeSpliced(txn, document.key, document.document)
                        if let outcome = spliced.outcome {
                            guard case .spliced(let bytes, let removed, let added) = outcome else { continue }
                            try saveSpliced(
                                txn, document.key, bytes, removing: removed, adding: added, raising: &raises)
                            changed.append(document.key)
                            continue
                        }
                        let previous = spliced.stored ? try loadDocument(txn, document.key) : nil
                        var merged = previous ?? TabBarDocument()
                        merged.merge(document.document)
                        if merged == previous { continue }
                        try saveDocument(txn, document.key, merged, previous: previous, raising: &raises)
                        keepClearDot(
                            document.key, incoming: document.document, merged: merged, raising: &raises)
                        changed.append(document.key)
                    }
                    guard trusted else { continue }
                    // A sender whose vector covers this store's sent everything this store lacks:
                    // the states must now be equal. Different digests prove a vector that claims
                    // entries its store lacks (the sender's or this one's), found in this exchange.
                    if let theirDigest = section.digest,
                        section.vector != local || !section.documents.isEmpty,
                        section.vector.covers(local)
                    {
                        let digest = try documentDigest(txn, section.profile)
                        if digest != theirDigest {
                            overClaims.append(
                                OverClaim(
                                    profile: section.profile, replica: writer.id, peer: sender,
                                    kind: .coveringVectorOverDifferentContents(
                                        digest: digest, peerDigest: theirDigest)))
                            repaired.append(section.profile)
                            _ = try rebuildVector(txn, section.profile, own: writer.id, from: local)
                            continue
                        }
                    }
                    // A replica is the authority on itself: no peer raises its own entry.
                    for element in section.vector.storage
                    where element.sequence > local[element.replica] && element.replica != writer.id {
                        raises.raise(section.profile, element.replica, to: element.sequence)
                    }
                }
                writer.clock.observe(newest)
                return (
                    changed, overClaims, repaired,
                    try saveWriteState(txn, writer, raising: raises, changed: changed)
                )
            }
        watchers.publish(changed, revisions: revisions)
        return DeltaApplication(changed: changed, overClaims: overClaims, untrusted: repaired)
    }

    /// `incoming` merged into the stored bytes of `key` (``SplicedEdit/merge(_:into:)``), and
    /// whether anything is stored under `key` (so a caller taking the full path reads the key once
    /// only when there is something to read). The outcome is nil when that path does not apply (no
    /// stored document, a clear in `incoming` that is not the stored one, bytes that do not
    /// decode), and the full path (decode, merge, encode) decides.
    func mergeSpliced(_ txn: borrowing Transaction, _ key: DocumentKey, _ incoming: TabBarDocument) throws
        -> (stored: Bool, outcome: SplicedEdit.Outcome?)
    {
        try txn.withValue(documents, key: spaces.documentKey(key)) {
            bytes -> (stored: Bool, outcome: SplicedEdit.Outcome?) in
            guard let bytes else { return (false, nil) }
            let stored = bytes.assumingMemoryBound(to: UInt8.self)
            let outcome = SplicedEdit.merge(incoming, into: stored)
            assert(
                SplicedEdit.mergeAgrees(stored, incoming, outcome),
                "a spliced merge disagrees with the full path")
            return (true, outcome)
        }
    }

    /// Replaces `profile`'s vector, `stored`, with the one its held dots prove (this replica's own
    /// entry kept, see `provenVector`), and returns it: what a store that may have over-claimed does.
    func rebuildVector(
        _ txn: borrowing Transaction, _ profile: ProfileID, own: ReplicaID, from stored: VersionVector
    )
        throws -> VersionVector
    {
        let proven = try provenVector(txn, profile, own: own, issued: stored[own])
        if proven != stored { try replaceVector(txn, profile, with: proven) }
        return proven
    }

    /// What comparing a peer's vector (and digest) of a profile with this store's found.
    struct ClaimCheck {
        /// The bad claims proven, each a finding to report.
        var findings: [OverClaim] = []
        /// Whether the peer's vector is not to be taken: a finding, or this store's entry of the
        /// peer past what the peer says it has issued.
        var untrusted = false
        /// This store's vector with what it may have over-claimed rebuilt from its dots.
        var proven: VersionVector?
    }

    /// Compares `theirs`, a peer's vector of `profile` (with the digest of its documents, when
    /// known), with `mine`, this store's, as a sync reply or an apply does.
    ///
    /// A claim about this replica `own` past what it has issued is proof (its issued sequence
    /// only grows), and so are equal vectors over different documents; both are findings. This
    /// store's entry of `peer` past what `peer` says it has issued is no proof — the message may be
    /// older than what this store has learned of the peer since (a folder file, a late message) —
    /// but rebuilding that entry from the dots held is right either way, so it is rebuilt,
    /// untrusted and not reported. `known` is this store's digest of the profile, when already read.
    func checkClaims(
        _ txn: borrowing Transaction, _ profile: ProfileID, mine: VersionVector, theirs: VersionVector,
        theirDigest: UInt32?, own: ReplicaID, peer: ReplicaID?, digest known: UInt32? = nil
    ) throws -> ClaimCheck {
        var check = ClaimCheck()
        if theirs[own] > mine[own] {
            check.findings.append(
                OverClaim(
                    profile: profile, replica: own, peer: peer,
                    kind: .peerClaimsThisReplica(claimed: theirs[own], issued: mine[own])))
            check.untrusted = true
        }
        if let peer, peer != own, mine[peer] > theirs[peer] {
            let held = try provenVector(txn, profile, own: own, issued: mine[own])[peer]
            if held < mine[peer] {
                var proven = mine
                proven[peer] = held
                check.proven = proven
                check.untrusted = true
            }
        }
        if !check.untrusted, theirDigest == Self.noDocumentsDigest, !theirs.isEmpty {
            check.findings.append(
                OverClaim(
                    profile: profile, replica: own, peer: peer,
                    kind: .peerVectorOverNoDocuments(replicas: theirs.count)))
            check.untrusted = true
        }
        if !check.untrusted, let theirDigest, mine == theirs {
            let digest = try known ?? documentDigest(txn, profile)
            if digest != theirDigest {
                check.findings.append(
                    OverClaim(
                        profile: profile, replica: own, peer: peer,
                        kind: .equalVectorsOverDifferentContents(digest: digest, peerDigest: theirDigest)))
                check.untrusted = true
                let proven = try provenVector(txn, profile, own: own, issued: mine[own])
                if proven != mine { check.proven = proven }
            }
        }
        return check
    }

    /// Refuses a stamp more than `maxDrift` ahead of this machine's clock.
    static func checkDrift(_ newest: Stamp, maxDrift: Duration) throws(TabKeepError) {
        let limit = UInt64(max(0, maxDrift.components.seconds)) * 1_000
        let now = HybridLogicalClock.wallMilliseconds()
        if newest.milliseconds > now + limit {
            throw .clockDrift(aheadMilliseconds: newest.milliseconds - now, limitMilliseconds: limit)
        }
    }

    /// Calls `body` with every stored document in key order, from one consistent snapshot, erased
    /// ones included; a document that does not decode is passed as a failure and the walk goes on.
    public func forEachDocument(
        _ body: (DocumentKey, Result<TabBarDocument, TabKeepError>) throws -> Void
    ) throws(TabKeepError) {
        try read { txn in
            try forEachDocumentRecord(txn, of: nil) { key, value in
                let documentKey = try spaces.documentKey(from: key)
                do {
                    try body(documentKey, .success(try TabBarDocument(decoding: value)))
                } catch let error as DocumentDecodingError {
                    try body(documentKey, .failure(.corruptDocument(documentKey, error)))
                }
                return true
            }
        }
    }

    /// Imports documents in one write transaction: `feed` calls its argument once per document.
    ///
    /// `replace` leaves the store holding exactly the fed documents: each replaces the stored one
    /// (and is reported unchanged when it equals it), and the stored documents it did not feed are
    /// removed; `merge` merges entry by entry. With `dryRun`, nothing is written and the report
    /// says what would change. `feed` may be called more than once (when the map must grow, or
    /// when a `replace` feed turns out not to be in key order), so it must produce the same
    /// documents each time; `sizeHint`, the expected bytes, grows the map once up front instead.
    ///
    /// Memory stays flat in the store's size when the feed is in key order, as a dump is: the
    /// stored documents a `replace` passes over are removed as the feed goes. A `replace` feed out
    /// of key order is fed again, keeping the set of fed keys (memory grows with the feed).
    ///
    /// Vectors are raised only as far as the imported entries prove (per profile, the highest dot
    /// of each replica among them), so a partial import never claims what it did not bring. A
    /// `replace` import also gives the store a fresh replica id (the old one stays in its vectors
    /// and in ``identityHistory()``): the store no longer holds what its old id had written.
    /// Entries stamped more than `maxDrift` ahead of this machine's clock refuse the whole import.
    ///
    /// ``changes()`` reports at most 4,096 of the added, changed and removed keys (the most a
    /// subscriber's stream buffers), in this process and in others.
    ///
    /// A `replace` that is not a dry run builds the new content in a fresh data file, in
    /// transactions of a few thousand documents, and renames it over the store's
    /// (LMDBKit's `Environment.replaceFile(mapSize:_:)`), so memory stays flat in the feed's size and a
    /// crash at any instant leaves the old content or the whole new one. It does so when the
    /// feed is in key order and the store can take a new file now: always in
    /// `per-transaction` locking mode (other processes reopen at their next transaction); in
    /// `lmdb` mode only while no other process has the store open. Otherwise it runs in
    /// one transaction, with the same outcome.
    @discardableResult
    public func importDocuments(
        mode: ImportMode, catalogs newCatalogs: [(bar: BarID, catalog: Catalog)] = [], dryRun: Bool = false,
        sizeHint: Int = 0, maxDrift: Duration = .seconds(300),
        _ feed: (_ add: (DocumentKey, TabBarDocument) throws -> Void) throws -> Void
    ) throws(TabKeepError) -> ImportReport {
        try importDocuments(
            mode: mode, catalogs: newCatalogs, dryRun: dryRun, sizeHint: sizeHint, maxDrift: maxDrift,
            strategy: .automatic, feed)
    }

    /// ``importDocuments(mode:catalogs:dryRun:sizeHint:maxDrift:_:)`` with the way a `replace`
    /// writes chosen: for the tests that hold the two ways to the same outcome.
    package func importDocuments(
        mode: ImportMode, catalogs newCatalogs: [(bar: BarID, catalog: Catalog)] = [], dryRun: Bool = false,
        sizeHint: Int = 0, maxDrift: Duration = .seconds(300), strategy: ReplaceStrategy,
        _ feed: (_ add: (DocumentKey, TabBarDocument) throws -> Void) throws -> Void
    ) throws(TabKeepError) -> ImportReport {
        try importFed(
            mode: mode, catalogs: newCatalogs, dryRun: dryRun, sizeHint: sizeHint, maxDrift: maxDrift,
            strategy: strategy
        ) { add in
            try withoutActuallyEscaping(add) { add in
                try feed { key, document in try add(key, .decoded(document)) }
            }
        }
    }

    /// ``importDocuments(mode:catalogs:dryRun:sizeHint:maxDrift:strategy:_:)`` fed documents
    /// decoded or already encoded (a restore's transcoded dump lines): a `replace` into a fresh
    /// file writes an encoded one as it is; every other way decodes it first.
    package func importFed(
        mode: ImportMode, catalogs newCatalogs: [(bar: BarID, catalog: Catalog)] = [], dryRun: Bool = false,
        sizeHint: Int = 0, maxDrift: Duration = .seconds(300), strategy: ReplaceStrategy,
        _ feed: (_ add: (DocumentKey, ImportedDocument) throws -> Void) throws -> Void
    ) throws(TabKeepError) -> ImportReport {
        do {
            if mode == .replace && !dryRun && strategy != .oneTransaction {
                var batch = Self.replaceBatch
                var preparing = ReplacePreparation.balanced
                if case .replacementFile(let size, let how) = strategy { (batch, preparing) = (size, how) }
                do {
                    if let report = try importByReplacingFile(
                        newCatalogs, maxDrift, sizeHint: sizeHint, batch: batch, preparing: preparing, feed)
                    {
                        return report
                    }
                    if strategy != .automatic {
                        throw TabKeepError.wrap(
                            LMDBError.inUseByAnotherProcess(path: environment.path, pid: 0))
                    }
                } catch is ImportFeedOutOfOrder {
                    return try importOnce(mode, newCatalogs, dryRun, maxDrift, keyOrdered: false, feed)
                }
            }
            if sizeHint > 0 && !dryRun {
                try environment.reserveMapSize(atLeast: try environment.info().usedBytes + sizeHint * 2)
            }
            do {
                return try importOnce(mode, newCatalogs, dryRun, maxDrift, keyOrdered: true, feed)
            } catch is ImportFeedOutOfOrder {
                return try importOnce(mode, newCatalogs, dryRun, maxDrift, keyOrdered: false, feed)
            }
        } catch {
            throw TabKeepError.wrap(error)
        }
    }

    /// The most keys one import publishes to ``changes()`` (the buffer of each subscriber's stream).
    static let importChangeLimit = 4_096

    /// One import transaction; with `keyOrdered`, a `replace` feed out of key order throws
    /// ``ImportFeedOutOfOrder`` (and writes nothing) so the caller runs it again without.
    private func importOnce(
        _ mode: ImportMode, _ newCatalogs: [(bar: BarID, catalog: Catalog)], _ dryRun: Bool,
        _ maxDrift: Duration,
        keyOrdered: Bool,
        _ feed: (_ add: (DocumentKey, ImportedDocument) throws -> Void) throws -> Void
    ) throws -> ImportReport {
        struct DryRun: Error { var report: ImportReport }
        let listening = !dryRun && watchers.hasSubscribers
        do {
            let (report, log, revisions, fresh):
                (ImportReport, ImportChangeLog, ClosedRange<UInt64>?, ReplicaID?) =
                    try environment.write { txn in
                        var report = ImportReport()
                        var log = ImportChangeLog(enabled: true)
                        var writer = try loadWriteState(txn)
                        var fresh: ReplicaID?
                        var raises = VersionRaises()
                        var fed = FedKeys(ordered: keyOrdered, spaces: spaces)
                        if mode == .replace {
                            // Every document fed raises the vectors again; the documents stay until the
                            // feed passes them, so each fed one is compared with what was stored.
                            try spaces.removeAll(txn, Records.Tag.version)
                            // A replace stores no layouts (as into a fresh file): its documents are
                            // read by decoding until their next write.
                            try spaces.removeAll(txn, Records.Tag.layout)
                            if !dryRun {
                                fresh = try takeFreshIdentity(txn)
                                writer = ReplicaWriteState(id: fresh!, clock: writer.clock)
                            }
                        }
                        for (bar, catalog) in newCatalogs {
                            if mode == .replace {
                                try txn.put(
                                    catalogsDatabase, key: Array(bar.rawValue.utf8), value: catalog.encoded())
                            } else {
                                // A merge keeps the documents it does not feed: their layouts follow
                                // a changed catalog, as a registration's do.
                                try putCatalog(txn, catalog, for: bar)
                            }
                            report.catalogs += 1
                        }
                        var newest = Stamp.zero
                        try feed { key, item in
                            let document = try item.document()
                            newest = max(newest, document.maxStamp)
                            try Self.checkDrift(document.maxStamp, maxDrift: maxDrift)
                            guard mode == .replace else {
                                let spliced = try mergeSpliced(txn, key, document)
                                if let outcome = spliced.outcome {
                                    guard case .spliced(let bytes, let removed, let added) = outcome else {
                                        report.unchanged += 1
                                        return
                                    }
                                    report.changed += 1
                                    try saveSpliced(
                                        txn, key, bytes, removing: removed, adding: added, raising: &raises)
                                    log.record(key)
                                    return
                                }
                                let previous = spliced.stored ? try loadDocument(txn, key) : nil
                                var merged = previous ?? TabBarDocument()
                                merged.merge(document)
                                if merged == previous {
                                    report.unchanged += 1
                                    return
                                }
                                if previous == nil { report.added += 1 } else { report.changed += 1 }
                                try saveDocument(txn, key, merged, previous: previous, raising: &raises)
                                log.record(key)
                                return
                            }
                            let (previous, stored) = try loadReplaced(txn, key)
                            switch try fed.admit(key) {
                            case .again:
                                // Fed twice: the second merges into the first, as any later document would.
                                var merged = previous ?? TabBarDocument()
                                merged.merge(document)
                                if merged == previous {
                                    report.unchanged += 1
                                } else {
                                    report.changed += 1
                                    try saveDocument(
                                        txn, key, merged, previous: previous, raising: &raises, layouts: .none
                                    )
                                    log.record(key)
                                }
                            case .first(let passed):
                                if let passed {
                                    report.removed += try removeDocuments(txn, in: passed, log: &log) { _ in
                                        false
                                    }
                                }
                                var replacement = TabBarDocument()
                                replacement.merge(document)
                                // `dots` was emptied: write every dot of the document, changed or not.
                                // In key order, most keys go past the last one (see `saveDocument`).
                                try saveDocument(
                                    txn, key, replacement, previous: nil, raising: &raises,
                                    appending: keyOrdered, layouts: .none)
                                if replacement == previous {
                                    report.unchanged += 1
                                } else {
                                    if stored { report.changed += 1 } else { report.added += 1 }
                                    log.record(key)
                                }
                            }
                        }
                        if mode == .replace {
                            report.removed += try removeDocuments(txn, in: fed.rest, log: &log) {
                                fed.contains($0)
                            }
                        }
                        writer.clock.observe(newest)
                        let revisions = try saveWriteState(txn, writer, raising: raises, changed: log.keys)
                        if dryRun { throw DryRun(report: report) }
                        return (report, log, revisions, fresh)
                    }
            if let fresh { identity.withLock { $0 = fresh } }
            if listening { watchers.publish(log.keys, revisions: revisions) }
            return report
        } catch let dry as DryRun {
            return dry.report
        }
    }

    /// What a `replace` finds stored under `key`: the document (nil when there is none, or when
    /// it does not decode: a replace repairs it) and whether anything was stored.
    func loadReplaced(_ txn: borrowing Transaction, _ key: DocumentKey) throws -> (TabBarDocument?, Bool) {
        do {
            let previous = try loadDocument(txn, key)
            return (previous, previous != nil)
        } catch TabKeepError.corruptDocument {
            return (nil, true)
        }
    }

    /// Deletes the documents in `range` that `keep` does not keep, in batches, so no list of the
    /// store's keys is held. Their dots need no deleting: a replace has emptied `dots`.
    private func removeDocuments(
        _ txn: borrowing Transaction, in range: KeyRange, log: inout ImportChangeLog,
        keeping keep: (DocumentKey) -> Bool
    ) throws -> Int {
        var removed = 0
        var lower = range.lower
        while true {
            var batch: [[UInt8]] = []
            var lastVisited: [UInt8]?
            var reachedEnd = true
            try spaces.forEach(txn, Records.Tag.document, from: lower) { key, _ in
                guard range.contains(key) else { return false }
                lastVisited = Array(key)
                if !keep(try spaces.documentKey(from: key)) { batch.append(Array(key)) }
                reachedEnd = batch.count < 256
                return reachedEnd
            }
            for key in batch {
                try txn.delete(documents, key: key)
                let documentKey = try spaces.documentKey(from: key)
                _ = try txn.delete(documents, key: spaces.layoutKey(documentKey))
                log.record(documentKey)
            }
            removed += batch.count
            guard !reachedEnd, let lastVisited else { return removed }
            lower = lastVisited + [0]  // the least key past the last one visited
        }
    }
}

/// A `replace` feed came out of key order; the import runs again keeping the set of fed keys.
struct ImportFeedOutOfOrder: Error {}

/// The keys a `replace` import has fed, to find the stored documents it did not feed.
///
/// A feed in key order needs only its last key: the stored documents between two fed keys are
/// removed as the feed passes them. Out of order, it keeps every fed key.
struct FedKeys {
    /// What feeding one key means.
    enum Admission {
        /// The key was fed before in this import.
        case again
        /// The key is new; `passed`, in a key-ordered feed, holds the stored keys skipped since the last one.
        case first(passed: KeyRange?)
    }

    private let ordered: Bool
    private let spaces: RecordSpaces
    private var last: DocumentKey?
    /// The stored key of `last`, once given to ``admit(_:storedAs:)``.
    private var lastBytes: [UInt8]?
    private var all: Set<DocumentKey> = []

    init(ordered: Bool, spaces: RecordSpaces) {
        self.ordered = ordered
        self.spaces = spaces
    }

    /// Admits `key`, whose stored key is `bytes` when the caller has built it already (the
    /// range passed over then starts from the last key's bytes instead of building both again).
    mutating func admit(_ key: DocumentKey, storedAs bytes: [UInt8]? = nil) throws -> Admission {
        guard ordered else { return all.insert(key).inserted ? .first(passed: nil) : .again }
        if let last {
            if key == last { return .again }
            guard last < key else { throw ImportFeedOutOfOrder() }
        }
        let lower = afterLast
        let upper = bytes ?? spaces.documentKey(key)
        last = key
        lastBytes = upper
        return .first(passed: KeyRange(from: lower, to: upper))
    }

    /// The first stored key past the last one admitted (its bytes ‖ 0x00), or nil before any.
    private var afterLast: [UInt8]? {
        guard let last else { return nil }
        var bytes = lastBytes ?? spaces.documentKey(last)
        bytes.append(0)
        return bytes
    }

    /// The stored keys still to check once the feed is done.
    var rest: KeyRange {
        ordered ? KeyRange(from: afterLast, to: nil) : .all
    }

    /// Whether `key` was fed (known out of order only: in order, `rest` holds no fed key).
    func contains(_ key: DocumentKey) -> Bool { all.contains(key) }
}

/// The keys and dots an import changed, for ``TabKeepStore/changes()``: kept only while someone
/// is subscribed, and at most ``TabKeepStore/importChangeLimit`` keys, so a large import holds no
/// list the size of the store.
struct ImportChangeLog {
    let enabled: Bool
    private(set) var keys: [DocumentKey] = []

    init(enabled: Bool) {
        self.enabled = enabled
    }

    mutating func record(_ key: DocumentKey) {
        guard enabled, keys.count < TabKeepStore.importChangeLimit else { return }
        keys.append(key)
    }
}
