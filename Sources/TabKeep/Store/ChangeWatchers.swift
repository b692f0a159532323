import LMDBKit
import Synchronization

/// The subscribers of ``TabKeepStore/changes()`` and the poller that finds other processes' commits.
///
/// This process's commits are published as they happen. Other processes' commits are found by
/// polling the store's change log (`changes`: revision → document key, at least the newest 100,000 kept):
/// the records past the last revision reported name exactly the documents that changed, minus the
/// revisions this process wrote itself.
final class ChangeWatchers: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<DocumentKey>.Continuation] = [:]
        var nextID = 0
        var poller: Task<Void, Never>?
        var reported: UInt64 = 0
        var localRevisions: Set<UInt64> = []
    }

    private let state = Mutex(State())

    var hasSubscribers: Bool { state.withLock { !$0.subscribers.isEmpty } }

    func subscribe(_ store: TabKeepStore) -> AsyncStream<DocumentKey> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: DocumentKey.self, bufferingPolicy: .bufferingNewest(4_096))
        let initial = try? store.lastRevision()
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            if state.poller == nil {
                state.reported = initial ?? 0
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
    func publish(_ keys: [DocumentKey], revisions: ClosedRange<UInt64>? = nil) {
        guard !keys.isEmpty else { return }
        let subscribers = state.withLock { state in
            if !state.subscribers.isEmpty, let revisions, revisions.upperBound > state.reported {
                state.localRevisions.formUnion(
                    revisions.clamped(to: (state.reported + 1)...revisions.upperBound))
            }
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
        guard let (now, found) = try? store.changesPast(reported), now > reported else { return }
        let (subscribers, keys) = state.withLock { state in
            var keys: [DocumentKey] = []
            var seen: Set<DocumentKey> = []
            for (revision, key) in found where state.localRevisions.remove(revision) == nil {
                if seen.insert(key).inserted { keys.append(key) }
            }
            state.localRevisions = state.localRevisions.filter { $0 > now }
            state.reported = max(state.reported, now)
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

    /// The last change-log revision.
    func lastRevision() throws -> UInt64 {
        try environment.read { txn in try currentRevision(txn) }
    }

    /// The last revision now, and every change-log record past `revision`: a range scan, so its
    /// cost grows with the change, not with the store.
    func changesPast(_ revision: UInt64) throws -> (UInt64, [(UInt64, DocumentKey)]) {
        try environment.read { txn in
            let now = try currentRevision(txn)
            var found: [(UInt64, DocumentKey)] = []
            guard now > revision else { return (now, found) }
            try forEachChange(txn, after: revision) { number, value in
                if let number { found.append((number, try changedKey(value))) }
                return true
            }
            return (now, found)
        }
    }
}
