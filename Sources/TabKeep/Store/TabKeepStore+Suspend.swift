import Dispatch
import LMDBKit

extension TabKeepStore {
    /// Lets go of every lock and descriptor on the store's files, for an app about to be
    /// suspended: waits until every `async` edit submitted so far is committed and every open
    /// transaction has ended, then closes the LMDB environment.
    ///
    /// On iOS a store shared with extensions lives in an App Group container, and iOS terminates
    /// a suspended process that still holds a file lock there (exception code `0xdead10cc`). An
    /// open LMDB environment holds POSIX locks on `lock.mdb` for as long as it is open, so call
    /// this when the app enters the background, inside a background task so the commits can
    /// finish, and ``resume()`` when it returns (`TabKeepUIKit`'s `StoreSuspension` does both).
    ///
    /// ```swift
    /// let task = UIApplication.shared.beginBackgroundTask()
    /// Task {
    ///     await store.suspend()
    ///     UIApplication.shared.endBackgroundTask(task)
    /// }
    /// ```
    ///
    /// While suspended:
    /// - An `async` edit waits: it is queued, not committed, and its `await` returns once
    ///   ``resume()`` has committed it. Nothing is dropped: an edit is acknowledged only when it
    ///   is durable, and an edit whose process ends before then was never acknowledged.
    /// - Every synchronous call (a read, a synchronous edit, a sync, a dump, subscribing to
    ///   ``changes()``) reopens the environment transparently and leaves it open: call `suspend()`
    ///   again before the app is suspended (a background task that uses the store ends with it).
    /// - Change streams do not look for other processes' commits; after ``resume()`` they report
    ///   everything committed meanwhile, within ``Options/pollInterval``.
    ///   A ``TabBarCoordinator`` defers its store reads and writes until ``resume()``.
    ///
    /// Every `TabKeepStore` on the directory in this process shares one environment, so this
    /// closes it for all of them; each reopens it at its next use. Suspending twice does nothing more.
    ///
    /// In `per-transaction` locking mode (``locking``) the store holds no lock between
    /// transactions, so none of the above is needed: this only waits for the `async` edits
    /// submitted so far and the transactions in flight. The store is not marked suspended
    /// (``isSuspended`` stays false), an edit issued afterwards simply runs, taking and releasing
    /// its own lock, and no call ever waits for ``resume()``.
    public func suspend() async {
        if locking == .perTransaction {
            await groupCommit.untilIdle()
        } else {
            await groupCommit.suspend()
        }
        // The close waits for other threads' transactions: wait on a dispatch thread, not a task's.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global(qos: .userInitiated).async {
                // Throws only inside a transaction of this thread (never here), or when the final flush
                // of a `.deferred` store fails: the next sync() reports that.
                try? self.environment.suspend()
                continuation.resume()
            }
        }
    }

    /// Undoes ``suspend()``: reopens the environment now, commits the `async` edits that waited
    /// and lets change streams look for other processes' commits again (they report what was
    /// committed while suspended within ``Options/pollInterval``). Does nothing when not suspended.
    ///
    /// If the store cannot be reopened (its volume is gone, say), the waiting edits fail with that
    /// error and every later call reports it; nothing is lost silently.
    public func resume() {
        // A failure here is met again, and thrown, by the first use below or by the caller's next call.
        try? environment.resume()
        groupCommit.resume(self)
    }

    /// Whether ``suspend()`` was called and ``resume()`` not since: `async` edits wait and change
    /// streams do not poll. (The environment may have been reopened by a synchronous call.) Always
    /// false in `per-transaction` locking mode, where suspending holds nothing back.
    public var isSuspended: Bool { groupCommit.isSuspended }

    /// Returns once the store is not suspended: at once, or when ``resume()`` is called.
    func untilResumed() async {
        await groupCommit.untilResumed()
    }
}
