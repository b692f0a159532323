// LMDB's C API: Debian's liblmdb on Linux, LMDB compiled from source on Apple platforms.
#if canImport(LMDB)
    internal import LMDB
#else
    internal import CLMDB
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Environment {
    /// Closes the `MDB_env` until the environment is used again, so this process holds no lock
    /// and no descriptor on `data.mdb` or `lock.mdb`; the object stays valid.
    ///
    /// iOS terminates a suspended app that holds a file lock in an App Group container
    /// (`0xdead10cc`), and an open LMDB environment holds POSIX locks on `lock.mdb` for its whole
    /// life: suspend it before the app is suspended.
    ///
    /// It waits for every transaction of this environment to end (new ones wait for it), drops the
    /// pooled read transactions, flushes a ``Durability/deferred`` environment (`mdb_env_sync`) and
    /// closes the handle (`mdb_env_close`). The next call that reaches LMDB (a transaction,
    /// ``info()``, ``sync()``…) or ``resume()`` reopens it, with the same database handles, so
    /// every ``Database`` stays valid. Meanwhile ``Environment/open(path:configuration:)`` of the
    /// path hands back this object, so the path never has two handles. Suspending a suspended
    /// environment does nothing.
    ///
    /// In ``Locking/perTransaction`` mode nothing is held between transactions, so there is
    /// nothing to let go of: it only waits for the transactions in flight (and flushes a
    /// `.deferred` environment), the environment stays open, and ``isSuspended`` stays false.
    ///
    /// Throws ``LMDBError/nestedTransaction`` inside a transaction on this thread, or the error of
    /// the final `mdb_env_sync` (the environment is closed even then).
    public func suspend() throws(LMDBError) {
        guard depth.value == 0 else { throw LMDBError.nestedTransaction }
        gate.lockExclusive()
        defer { gate.unlock() }
        guard let handle = openHandle else { return }
        if locking == .perTransaction {
            if configuration.durability == .deferred && !isReadOnly && !handleIsReadOnly {
                try check(mdb_env_sync(handle, 1))
            }
            return
        }
        try shutDown(handle, suspending: true)
    }

    /// Reopens a suspended environment now rather than at its next use; does nothing while it is
    /// open. Wraps `mdb_env_open` and `mdb_dbi_open`. Throws ``LMDBError/closed(path:)`` after
    /// ``close()``, or the error of the open.
    public func resume() throws(LMDBError) {
        let entered = try enterIfOutermost()
        if entered { gate.unlock() }
    }

    /// Closes the environment for good: waits for every transaction to end, then closes the
    /// handle (`mdb_env_close`), so the path may be opened again, by a new environment. Every later
    /// use of this object throws ``LMDBError/closed(path:)``; closing twice does nothing.
    /// Throws ``LMDBError/nestedTransaction`` inside a transaction on this thread.
    public func close() throws(LMDBError) {
        guard depth.value == 0 else { throw LMDBError.nestedTransaction }
        gate.lockExclusive()
        defer { gate.unlock() }
        guard !isClosed else { return }
        if let handle = openHandle {
            try shutDown(handle, suspending: false)
        } else {
            Environment.registry.forget(registryKey, ObjectIdentifier(self))
        }
        isClosed = true
    }

    /// Whether the environment is suspended: no `MDB_env` now, reopened at its next use.
    public var isSuspended: Bool {
        // Inside a transaction on this thread, the gate is held and the environment open.
        guard depth.value == 0 else { return false }
        gate.lockShared()
        defer { gate.unlock() }
        return openHandle == nil && !isClosed
    }

    /// Closes `handle` with the gate held exclusive (no transaction open), leaving the path
    /// suspended by this object or free.
    func shutDown(_ handle: OpaquePointer, suspending: Bool) throws(LMDBError) {
        abortPooledReaders()
        var info = MDB_envinfo()
        if mdb_env_info(handle, &info) == 0 {
            lastSeenTransactionID.store(info.me_last_txnid, ordering: .relaxed)
        }
        // MDB_NOSYNC commits are in the page cache only: write them before letting go.
        let flushed = Result { () throws(LMDBError) in
            if configuration.durability == .deferred && !isReadOnly && !handleIsReadOnly {
                try check(mdb_env_sync(handle, 1))
            }
        }
        let retained = retainedLockFile
        Environment.registry.closing(registryKey, handle: handle, suspending: suspending ? self : nil) {
            mdb_env_close(handle)
            // The lock this process's LMDB lock rode on after a replacement: let go of it after the handle.
            if retained >= 0 { closeFile(retained) }
        }
        retainedLockFile = -1
        openHandle = nil
        try flushed.get()
    }

    /// Holds the environment open for a call that reaches LMDB: the gate shared, the handle
    /// reopened first if suspended. The caller unlocks the gate when done.
    func enter() throws(LMDBError) {
        while true {
            gate.lockShared()
            if openHandle != nil { return }
            gate.unlock()
            gate.lockExclusive()
            do throws(LMDBError) {
                try reopenHoldingGate()
            } catch {
                gate.unlock()
                throw error
            }
            gate.unlock()
        }
    }

    /// ``enter()`` for a call made outside any transaction of this thread; one made inside
    /// already holds the gate. Returns whether it entered (and the caller must unlock).
    func enterIfOutermost() throws(LMDBError) -> Bool {
        guard depth.value == 0 else {
            // Inside ``replaceFile(mapSize:_:)``'s build, whose handle may be closed.
            guard openHandle != nil else { throw LMDBError.nestedTransaction }
            return false
        }
        try enter()
        return true
    }

    /// Reopens the handle, with the gate held exclusive, through the registry, checking that
    /// every database has the handle it had.
    /// With `holdingTransactionLock`, the caller holds the per-transaction lock already.
    func reopenHoldingGate(holdingTransactionLock: Bool = false) throws(LMDBError) {
        guard !isClosed else { throw LMDBError.closed(path: path) }
        guard openHandle == nil else { return }
        let configuration = configuration
        let readOnly = isReadOnly || handleIsReadOnly
        let expected = databases
        let locking = locking
        // Read before the open: a replacement between the two makes one needless reopen, never a stale handle.
        let generation = transactionLock?.generation ?? 0
        let lock = holdingTransactionLock ? nil : transactionLock
        openHandle = try Environment.registry.reopen(registryKey, self) { () throws(LMDBError) in
            let (handle, reopened) = try Environment.makeHandle(
                files: StoreFiles(path), configuration: configuration, readOnly: readOnly, locking: locking,
                transactionLock: lock)
            // Same names opened in the same order get the same handles; anything else is refused.
            guard reopened == expected else {
                mdb_env_close(handle)
                throw LMDBError.badDatabaseHandle
            }
            return handle
        }
        openedGeneration = generation
        openings += 1
    }
}
