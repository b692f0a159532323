package import TabKeep

/// The per-device log that both the folder transport and the object-store transport keep: each
/// replica writes one log of what the others lack and reads every other replica's log.
///
/// The log's bytes are a ``SyncMessage`` of kind reply; a transport stores and moves them
/// opaquely (a file, an object), and goes through this type to read and write them, so the
/// folder's files and the bucket's objects stay the same bytes whatever the message format.
package struct ReplicaLog: Sendable {
    /// The session that applies other logs and computes this replica's.
    package let session: SyncSession

    /// A log of `store`'s `profiles` (every profile when nil).
    package init(store: TabKeepStore, profiles: Set<ProfileID>?, maxDrift: Duration) {
        session = SyncSession(store: store, scope: profiles.map { .only($0) } ?? .all, maxDrift: maxDrift)
    }

    /// The profiles the log serves.
    package var scope: ProfileScope { session.scope }

    /// What applying another replica's log found: its in-scope vectors (what this replica's own
    /// log may be computed past), the documents whose stored value changed, and the bad version
    /// vectors it showed.
    package struct Received: Sendable {
        /// The replica that wrote the log.
        package var sender: ReplicaID
        /// The log's vectors of the profiles in scope.
        package var vectors: [ProfileID: VersionVector]
        /// The documents whose stored value changed.
        package var changed: [DocumentKey]
        /// The bad claims the log proved (see `OverClaim`), dropped and repaired.
        package var overClaims: [OverClaim]
        /// The profiles whose section was not trusted: this replica's next log sends them whole.
        package var untrusted: [ProfileID]
    }

    /// Decodes, checks and applies another replica's log in one write transaction; `replica` is
    /// the replica its name says wrote it. A refused log changes nothing.
    package func receive(_ bytes: [UInt8], from replica: ReplicaID, name: String) throws(SyncError)
        -> Received
    {
        let message = try SyncMessage(decoding: bytes)
        guard message.sender == replica else {
            throw .file(
                path: name, reason: "written by replica \(message.sender), not the \(replica) its name says")
        }
        guard message.kind == .reply else { throw .unexpectedKind(message.kind, expected: "a reply") }
        let vectors = message.vectors.filter { scope.contains($0.key) }
        let applied = try session.apply(message)
        return Received(
            sender: message.sender, vectors: vectors, changed: applied.changed,
            overClaims: applied.overClaims,
            untrusted: applied.untrusted)
    }

    /// This replica's log: everything in scope past what every other log shows of a profile (a
    /// profile one of them lacks goes whole; with no other log, the full state), and whole for
    /// the `untrusted` profiles, where a log's vector was not trusted: its writer may lack any of it.
    package func own(after seen: [[ProfileID: VersionVector]], fullState untrusted: Set<ProfileID> = [])
        throws(SyncError) -> (
            bytes: [UInt8], documents: Int
        )
    {
        var base: [ProfileID: VersionVector] = [:]
        if let first = seen.first {
            for (profile, vector) in first {
                var least = vector
                for other in seen.dropFirst() {
                    guard let theirs = other[profile] else {
                        least = VersionVector()
                        break
                    }
                    least = least.pointwiseMinimum(theirs)
                }
                if !least.isEmpty { base[profile] = least }
            }
        }
        let message = try session.deltaMessage(kind: .reply, after: base, scope: scope, fullState: untrusted)
        return (message.encoded(), message.documents.count)
    }
}

extension VersionVector {
    /// The pointwise minimum (a replica absent from either is 0).
    func pointwiseMinimum(_ other: VersionVector) -> VersionVector {
        var result = VersionVector()
        for replica in replicas { result[replica] = Swift.min(self[replica], other[replica]) }
        return result
    }
}
