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
    /// How far ahead of this machine's clock incoming entries may be stamped (default 5 minutes).
    public var maxDrift: Duration

    /// A session for `store`, refusing entries stamped more than `maxDrift` ahead.
    public init(store: TabKeepStore, maxDrift: Duration = .seconds(300)) {
        self.store = store
        self.maxDrift = maxDrift
    }

    /// Step 1: a request carrying this store's version vector.
    public func request() throws(SyncError) -> SyncMessage {
        let vector: VersionVector
        do {
            vector = try store.versionVector()
        } catch {
            throw SyncError.wrap(error)
        }
        return SyncMessage(kind: .request, sender: store.replicaID, vector: vector)
    }

    /// Step 2: the entries the requester lacks, with this store's version vector. Applies nothing.
    public func respond(to request: SyncMessage) throws(SyncError) -> SyncMessage {
        guard request.kind == .request else { throw .unexpectedKind(request.kind, expected: "a request") }
        guard request.sender != store.replicaID else { throw .fromThisReplica(request.sender) }
        return try deltaMessage(kind: .reply, after: request.vector)
    }

    /// Steps 3 and 4: applies a reply or a final message in one write transaction. For a reply,
    /// the receipt carries the final message (the entries the replier lacks) to send back.
    @discardableResult
    public func receive(_ message: SyncMessage) throws(SyncError) -> SyncReceipt {
        guard message.kind != .request else {
            throw .unexpectedKind(message.kind, expected: "a reply or a final message")
        }
        let changed = try apply(message)
        guard message.kind == .reply else { return SyncReceipt(changed: changed, reply: nil) }
        return SyncReceipt(changed: changed, reply: try deltaMessage(kind: .final, after: message.vector))
    }

    /// A message of everything this store has past `base`, taken with its vector in one snapshot.
    func deltaMessage(kind: SyncMessage.Kind, after base: VersionVector) throws(SyncError) -> SyncMessage {
        let delta: StoreDelta
        do {
            delta = try store.delta(after: base)
        } catch {
            throw SyncError.wrap(error)
        }
        return SyncMessage(
            kind: kind, sender: store.replicaID, vector: delta.vector, base: base, entries: delta.documents)
    }

    /// Applies a message's entries and vector, once its base is known to be covered.
    func apply(_ message: SyncMessage) throws(SyncError) -> [DocumentKey] {
        guard message.sender != store.replicaID else { throw .fromThisReplica(message.sender) }
        do {
            // Versions only grow, so a base covered now is still covered when the write runs.
            let local = try store.versionVector()
            for replica in message.base.replicas where local[replica] < message.base[replica] {
                throw SyncError.missingHistory(
                    replica: replica, needed: message.base[replica], have: local[replica])
            }
            return try store.apply(message.entries, vector: message.vector, maxDrift: maxDrift)
        } catch let error as SyncError {
            throw error
        } catch let error as TabKeepError {
            throw SyncError.wrap(error)
        } catch {
            throw SyncError.store(.corruptMeta(String(describing: error)))
        }
    }
}
