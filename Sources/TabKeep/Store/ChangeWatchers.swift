import LMDBKit
import Synchronization

/// The subscribers of ``TabKeepStore/changes()`` and the poller that finds other processes' commits.
///
/// This process's commits are published as they happen. Other processes' commits are found by
/// polling: when the `versions` vector moved past what was already reported, the `dots` written
/// since point at exactly the documents that changed (the same range scan sync uses), minus the
/// dots this process committed itself.
final class ChangeWatchers: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<DocumentKey>.Continuation] = [:]
        var nextID = 0
        var poller: Task<Void, Never>?
        var reported = VersionVector()
        var localDots: Set<Dot> = []
    }

    private let state = Mutex(State())

    var hasSubscribers: Bool { state.withLock { !$0.subscribers.isEmpty } }

    func subscribe(_ store: TabKeepStore) -> AsyncStream<DocumentKey> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: DocumentKey.self, bufferingPolicy: .bufferingNewest(4_096))
        let initial = try? store.versionVector()
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            if state.poller == nil {
                state.reported = initial ?? VersionVector()
                let interval = store.options.pollInterval
                state.poller = Task.detached { [weak store] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        guard let store else { return }
                        store.watchers.poll(store)
                    }
                }
            }
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return stream
    }

    private func unsubscribe(_ id: Int) {
        let poller: Task<Void, Never>? = state.withLock { state in
            state.subscribers[id] = nil
            guard state.subscribers.isEmpty else { return nil }
            defer { state.poller = nil }
            return state.poller
        }
        poller?.cancel()
    }

    /// Publishes this process's commit.
    func publish(_ keys: [DocumentKey], dots: [Dot] = []) {
        guard !keys.isEmpty else { return }
        let subscribers = state.withLock { state in
            if !state.subscribers.isEmpty { state.localDots.formUnion(dots) }
            return Array(state.subscribers.values)
        }
        for continuation in subscribers {
            for key in keys { continuation.yield(key) }
        }
    }

    /// Looks for commits of other processes since the last poll.
    func poll(_ store: TabKeepStore) {
        // A read would reopen a suspended store: what changed meanwhile is found after resume().
        guard !store.isSuspended else { return }
        let reported = state.withLock { $0.reported }
        guard let (vector, found) = try? store.dotsPast(reported), vector != reported else { return }
        let (subscribers, keys) = state.withLock { state in
            var keys: [DocumentKey] = []
            var seen: Set<DocumentKey> = []
            for (dot, key) in found where state.localDots.remove(dot) == nil && seen.insert(key).inserted {
                keys.append(key)
            }
            state.localDots = state.localDots.filter { !vector.contains($0) }
            state.reported.merge(vector)
            return (Array(state.subscribers.values), keys)
        }
        for continuation in subscribers {
            for key in keys { continuation.yield(key) }
        }
    }

    func stop() {
        let (poller, subscribers) = state.withLock { state in
            defer {
                state.poller = nil
                state.subscribers = [:]
            }
            return (state.poller, Array(state.subscribers.values))
        }
        poller?.cancel()
        for continuation in subscribers { continuation.finish() }
    }
}

extension TabKeepStore {
    /// Every changed (profile, bar), as it commits: this process's edits at once, other processes'
    /// within ``Options/pollInterval``, syncs included. Each call makes a new stream; it ends when
    /// the store goes away. A stream buffers the newest 4,096 keys: a consumer that falls further
    /// behind (or one bulk import that changes more) should re-read what it shows.
    ///
    /// ```swift
    /// for await key in store.changes() where key.profile == profile {
    ///     refresh(try store.layout(profile, bar: key.bar))
    /// }
    /// ```
    public func changes() -> AsyncStream<DocumentKey> {
        watchers.subscribe(self)
    }

    /// The version vector now, and every dot past `vector` with the document that holds it:
    /// a range scan of `dots` per replica, so its cost grows with the change, not with the store.
    func dotsPast(_ vector: VersionVector) throws -> (VersionVector, [(Dot, DocumentKey)]) {
        try environment.read { txn in
            let now = try readVersions(txn)
            var found: [(Dot, DocumentKey)] = []
            for replica in now.replicas where now[replica] > vector[replica] {
                var range = KeyRange.prefix(Records.bigEndian(replica.rawValue))
                range.lower = Records.dotKey(Dot(replica: replica, sequence: vector[replica] + 1))
                try txn.forEach(dots, in: range) { key, value in
                    if let dot = Records.dot(from: key) { found.append((dot, try DocumentKey(bytes: value))) }
                    return true
                }
            }
            return (now, found)
        }
    }
}
