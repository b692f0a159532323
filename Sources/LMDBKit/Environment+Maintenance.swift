import Foundation

#if canImport(LMDB)
    internal import LMDB
#else
    internal import CLMDB
#endif

/// What a running environment needs now and then: sync, figures, stale readers, hot backup.
extension Environment {
    /// Flushes every commit to disk; needed only with ``Durability/deferred``. Wraps `mdb_env_sync`.
    public func sync() throws(LMDBError) {
        let entered = try enterIfOutermost()
        defer { if entered { gate.unlock() } }
        // A handle still read-only has written nothing (LMDB refuses to sync one).
        if handleIsReadOnly { return }
        try check(mdb_env_sync(handle, 1))
    }

    /// The environment's figures. It holds the map lock, so a concurrent map growth cannot unmap
    /// the meta pages it reads. Wraps `mdb_env_info` and `mdb_env_stat`.
    public func info() throws(LMDBError) -> EnvironmentInfo {
        let entered = try enterIfOutermost()
        defer { if entered { gate.unlock() } }
        mapLock.lockShared()
        defer { mapLock.unlock() }
        return try infoHoldingMapLock()
    }

    /// ``info()`` for a caller that already holds the map lock.
    func infoHoldingMapLock() throws(LMDBError) -> EnvironmentInfo {
        var info = MDB_envinfo()
        var stat = MDB_stat()
        try check(mdb_env_info(handle, &info))
        try check(mdb_env_stat(handle, &stat))
        return EnvironmentInfo(
            mapSize: info.me_mapsize, lastPage: info.me_last_pgno, lastTransactionID: info.me_last_txnid,
            maxReaders: Int(info.me_maxreaders), readers: Int(info.me_numreaders),
            pageSize: Int(stat.ms_psize))
    }

    /// The id of the last transaction committed by any process: cheap, for change polling. Holds
    /// the map lock like ``info()``. `mdb_env_info` fails only for a null environment or result,
    /// which an open environment never passes, so a failure stops the process instead of throwing.
    /// A suspended environment reopens for it; a closed one (or one that cannot reopen) answers
    /// the last id it saw.
    public var lastTransactionID: Int {
        guard let entered = try? enterIfOutermost() else {
            return lastSeenTransactionID.load(ordering: .relaxed)
        }
        defer { if entered { gate.unlock() } }
        mapLock.lockShared()
        defer { mapLock.unlock() }
        var info = MDB_envinfo()
        let rc = mdb_env_info(handle, &info)
        precondition(rc == 0, "mdb_env_info failed: \(LMDBError(code: rc))")
        return info.me_last_txnid
    }

    /// The figures of one database. Wraps `mdb_stat`.
    public func statistics(of database: Database) throws(LMDBError) -> DatabaseStatistics {
        // Not through `read { }`: Swift 6.3's optimizer crashes inlining that closure here (release builds).
        let entered = try enterIfOutermost()
        defer { if entered { gate.unlock() } }
        if entered, let transactionLock { try transactionLock.lockShared() }
        defer { if entered, let transactionLock { transactionLock.unlockShared() } }
        mapLock.lockShared()
        defer { mapLock.unlock() }
        let txn = try begin(readOnly: true, nested: depth.value != 0)
        defer { mdb_txn_abort(txn) }
        var stat = MDB_stat()
        try check(mdb_stat(txn, database.dbi, &stat))
        return DatabaseStatistics(stat)
    }

    /// Clears reader slots left by processes that died; returns how many. Wraps `mdb_reader_check`.
    @discardableResult
    public func clearStaleReaders() throws(LMDBError) -> Int {
        let entered = try enterIfOutermost()
        defer { if entered { gate.unlock() } }
        var dead: Int32 = 0
        try check(mdb_reader_check(handle, &dead))
        return Int(dead)
    }

    /// Copies the environment, while it is in use, into `destination` (created if missing, and
    /// empty). With `compact`, free pages are omitted and pages renumbered. The copy is a
    /// consistent snapshot of the last commit before the copy began.
    ///
    /// The copy's `data.mdb` is created with the configuration's file mode from the start and
    /// exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`), so it is never readable by others, even for
    /// an instant, and never written through a link; a destination that is itself a symbolic link
    /// is refused with ``LMDBError/destinationIsSymbolicLink(_:)``. The copy of a
    /// ``Locking/perTransaction`` store gets its own ``transactionLockFileName``, so it keeps the
    /// mode. Wraps `mdb_env_copyfd2`.
    public func backup(to destination: String, compact: Bool = false) throws(LMDBError) {
        var status = stat()
        if lstat(destination, &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
            throw LMDBError.destinationIsSymbolicLink(destination)
        }
        let target = try Environment.prepareDirectory(destination, mode: configuration.fileMode)
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: target)) ?? []
        guard contents.isEmpty else { throw LMDBError.destinationNotEmpty(target) }
        // A per-transaction store's copy records its mode too, before its data file exists.
        let lockFile = target + "/" + Environment.transactionLockFileName
        if locking == .perTransaction {
            let made = createExclusively(lockFile, mode: configuration.fileMode)
            guard made >= 0 else { throw LMDBError.system(errno: errno) }
            closeDescriptor(made)
        }
        let file = target + "/data.mdb"
        let descriptor = createExclusively(file, mode: configuration.fileMode)
        guard descriptor >= 0 else {
            let failure = errno
            if locking == .perTransaction { unlink(lockFile) }
            throw LMDBError.system(errno: failure)
        }
        var copied = false
        defer {
            if !copied {
                unlink(file)
                if locking == .perTransaction { unlink(lockFile) }
            }
        }
        do throws(LMDBError) {
            let entered = try enterIfOutermost()
            defer { if entered { gate.unlock() } }
            // The copy is a read transaction: in per-transaction mode no commit may run beside it.
            if entered, let transactionLock { try transactionLock.lockShared() }
            defer { if entered, let transactionLock { transactionLock.unlockShared() } }
            // The copy reads the map: hold it shared so a concurrent growth cannot unmap it.
            mapLock.lockShared()
            defer { mapLock.unlock() }
            try check(mdb_env_copyfd2(handle, descriptor, compact ? UInt32(MDB_CP_COMPACT) : 0))
            guard fsync(descriptor) == 0 else { throw LMDBError.system(errno: errno) }
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
        guard closeDescriptor(descriptor) == 0 else { throw LMDBError.system(errno: errno) }
        copied = true
    }
}

/// Creates `path` for writing with `O_CREAT | O_EXCL | O_NOFOLLOW` and `mode`: never an existing
/// file, never through a link. Returns the descriptor, or -1 with `errno` set.
private func createExclusively(_ path: String, mode: UInt16) -> Int32 {
    open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
}

/// `close(2)`, named apart from ``Environment/close()``.
@discardableResult
private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }
