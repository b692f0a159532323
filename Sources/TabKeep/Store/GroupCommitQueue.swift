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
    }

    /// The most edits one transaction takes, so one huge burst does not hold the writer lock for long.
    static let maxBatch = 4_096

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "TabKeep.GroupCommit", qos: .userInitiated)

    func submit(_ request: EditRequest, to store: TabKeepStore) async -> Result<Void, TabKeepError> {
        await withCheckedContinuation { continuation in
            let start = state.withLock { state in
                state.waiting.append(Waiting(request: request, continuation: continuation))
                if state.writing { return false }
                state.writing = true
                return true
            }
            if start { queue.async { self.drain(store) } }
        }
    }

    private func drain(_ store: TabKeepStore) {
        while true {
            let batch: [Waiting] = state.withLock { state in
                let taken = Array(state.waiting.prefix(Self.maxBatch))
                state.waiting.removeFirst(taken.count)
                if taken.isEmpty { state.writing = false }
                return taken
            }
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

extension TabKeepStore {
    /// Applies `edits` to `profile`'s `bar` atomically through the group-commit writer, and
    /// resumes when they are durable. Edits from many tasks share one commit, so this never waits
    /// behind one fsync per edit; the caller's thread is never blocked.
    public func edit(
        _ profile: ProfileID, bar: BarID = .main, catalog: Catalog? = nil, _ edits: [TabBarEdit]
    ) async throws(TabKeepError) {
        let request = EditRequest(
            key: DocumentKey(profile: profile, bar: bar), catalog: catalog, edits: edits)
        try await groupCommit.submit(request, to: self).get()
    }

    /// Applies one edit through the group-commit writer; see the `async` ``edit(_:bar:catalog:_:)-(_,_,_,[TabBarEdit])``.
    public func edit(_ profile: ProfileID, bar: BarID = .main, catalog: Catalog? = nil, _ edit: TabBarEdit)
        async throws(TabKeepError)
    {
        try await self.edit(profile, bar: bar, catalog: catalog, [edit])
    }
}
