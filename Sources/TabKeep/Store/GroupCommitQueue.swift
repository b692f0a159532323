import Dispatch
import Synchronization

/// The background writer behind the `async` edit API: callers queue edits, one writer takes all
/// that are waiting, commits them in one transaction, and resumes each caller with its own result.
/// The writer runs on its own dispatch queue, so fsync never blocks Swift's cooperative threads.
final class GroupCommitQueue: Sendable {
    private struct Waiting {
        var request: EditRequest
        var continuation: CheckedContinuation<Result<Void, TabKeepError>, Never>
    }

    private struct State {
        var waiting: [Waiting] = []
        var writing = false
        /// While the store is suspended, new edits wait here until it resumes.
        var suspended = false
        var held: [Waiting] = []
        /// Suspends waiting for the writer to finish what it had.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// Callers waiting for the store to resume.
        var resumeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The most edits one transaction takes, so one huge burst does not hold the writer lock for long.
    static let maxBatch = 4_096

    private let state = Mutex(State())
    /// The writer's queue, made at the first `async` edit: a store opened to read never pays for it.
    private let madeQueue = Mutex<DispatchQueue?>(nil)

    private var queue: DispatchQueue {
        madeQueue.withLock { made in
            if let made { return made }
            let queue = DispatchQueue(label: "TabKeep.GroupCommit", qos: .userInitiated)
            made = queue
            return queue
        }
    }

    func submit(_ request: EditRequest, to store: TabKeepStore) async -> Result<Void, TabKeepError> {
        await withCheckedContinuation { continuation in
            let start = state.withLock { state in
                let waiting = Waiting(request: request, continuation: continuation)
                if state.suspended {
                    state.held.append(waiting)
                    return false
                }
                state.waiting.append(waiting)
                if state.writing { return false }
                state.writing = true
                return true
            }
            if start { queue.async { self.drain(store) } }
        }
    }

    private func drain(_ store: TabKeepStore) {
        while true {
            let (batch, idle): ([Waiting], [CheckedContinuation<Void, Never>]) = state.withLock { state in
                let taken = Array(state.waiting.prefix(Self.maxBatch))
                state.waiting.removeFirst(taken.count)
                guard taken.isEmpty else { return (taken, []) }
                state.writing = false
                defer { state.idleWaiters = [] }
                return ([], state.idleWaiters)
            }
            for waiter in idle { waiter.resume() }
            if batch.isEmpty { return }
            let results: [Result<Void, TabKeepError>]
            do {
                results = try store.commit(batch.map(\.request))
            } catch {
                results = Array(repeating: .failure(error), count: batch.count)
            }
            for (waiting, result) in zip(batch, results) { waiting.continuation.resume(returning: result) }
        }
    }
}

extension GroupCommitQueue {
    /// Whether new edits are held until ``resume(_:)``.
    var isSuspended: Bool { state.withLock { $0.suspended } }

    /// Holds every edit submitted from now on, and returns once the writer has committed every
    /// edit submitted before.
    func suspend() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state in
                state.suspended = true
                if state.writing { state.idleWaiters.append(continuation) }
                return !state.writing
            }
            if idle { continuation.resume() }
        }
    }

    /// Returns once the writer has committed every edit submitted before, holding nothing back:
    /// edits submitted meanwhile are committed as usual.
    func untilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state in
                if state.writing { state.idleWaiters.append(continuation) }
                return !state.writing
            }
            if idle { continuation.resume() }
        }
    }

    /// How many edits wait for ``resume(_:)``.
    var heldCount: Int { state.withLock { $0.held.count } }

    /// Hands the held edits to the writer, in the order they were submitted, and wakes
    /// ``untilResumed()``.
    func resume(_ store: TabKeepStore) {
        let (start, waiters) = state.withLock { state in
            state.suspended = false
            state.waiting += state.held
            state.held = []
            defer { state.resumeWaiters = [] }
            if state.writing || state.waiting.isEmpty { return (false, state.resumeWaiters) }
            state.writing = true
            return (true, state.resumeWaiters)
        }
        if start { queue.async { self.drain(store) } }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns at once when not suspended, else when ``resume(_:)`` is called.
    func untilResumed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.suspended { state.resumeWaiters.append(continuation) }
                return !state.suspended
            }
            if now { continuation.resume() }
        }
    }
}

extension TabKeepStore {
    /// Applies `edits` to `profile`'s `bar` atomically through the group-commit writer, and
    /// resumes when they are durable. Edits from many tasks share one commit, so this never waits
    /// behind one fsync per edit; the caller's thread is never blocked.
    /// While the store is suspended, the edit waits for ``resume()`` (see ``suspend()``).
    public func edit(
        _ profile: ProfileID, bar: BarID = .main, catalog: Catalog? = nil, _ edits: [TabBarEdit]
    ) async throws(TabKeepError) {
        let request = EditRequest(
            key: DocumentKey(profile: profile, bar: bar), catalog: catalog, edits: edits)
        try await groupCommit.submit(request, to: self).get()
    }

    /// Applies one edit through the group-commit writer; see the `async` `edit(_:bar:catalog:_:)` taking a list of edits.
    public func edit(_ profile: ProfileID, bar: BarID = .main, catalog: Catalog? = nil, _ edit: TabBarEdit)
        async throws(TabKeepError)
    {
        try await self.edit(profile, bar: bar, catalog: catalog, [edit])
    }
}
