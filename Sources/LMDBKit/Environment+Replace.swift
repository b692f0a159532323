import Foundation

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

/// Replacing the whole data file: a bulk rewrite built in a fresh environment, in as many
/// transactions as it likes, then put in place by one `rename(2)`.
extension Environment {
    /// The prefix of the directories, inside the store's, where replacements are built.
    public static let replacementDirectoryPrefix = "replacement-"

    /// Rewrites the whole store without one write transaction the size of it: `build` gets a
    /// read-only environment over the current content (its read transactions, from any thread,
    /// all see the same state: nothing writes it meanwhile) and a fresh, empty one with the same named
    /// databases (``Durability/deferred``, reached by nobody else), writes the new content into it
    /// in as many transactions as it likes, and when it returns the fresh file is flushed and
    /// renamed over `data.mdb`: every later transaction, in every process, sees the new content.
    /// A crash at any instant leaves the old file or the new one, never a mix; a throw from
    /// `build` (or any failure before the rename) leaves the store as it was. Neither environment
    /// may be used once `build` has returned (threads it started must be done by then).
    ///
    /// Memory stays what `build` holds: LMDB keeps a write transaction's dirty pages in memory
    /// (up to half a GiB before it spills), and the replacement commits as often as `build` does.
    ///
    /// Nobody writes the store meanwhile: this process's transactions wait for the replacement,
    /// and so do other processes'. In ``Locking/perTransaction`` mode the transaction lock is held
    /// exclusive throughout, and other processes reopen at their next transaction (the lock file
    /// carries the data file's generation). In ``Locking/lmdb`` mode another process's open
    /// environment would keep reading the old file through its map, so the replacement is
    /// refused with ``LMDBError/inUseByAnotherProcess(path:pid:)`` while one has the store open,
    /// and other processes' opens wait until it is done. `mapSize` is the fresh environment's
    /// first map size (it grows as any map does). Directories left by a replacement that was cut
    /// short are removed by the next one.
    ///
    /// Throws ``LMDBError/nestedTransaction`` inside a transaction on this thread, `EROFS` on a
    /// read-only store, or what `build`, the flush or the rename threw.
    public func replaceFile<R>(
        mapSize: Int, _ build: (_ current: Environment, _ replacement: Environment) throws -> R
    ) throws -> R {
        guard !isReadOnly else { throw LMDBError.system(errno: EROFS) }
        guard depth.value == 0 else { throw LMDBError.nestedTransaction }
        gate.lockExclusive()
        defer { gate.unlock() }
        guard !isClosed else { throw LMDBError.closed(path: path) }
        var lifetimeLock: Int32 = -1
        if locking == .lmdb {
            lifetimeLock = try holdLifetimeLockAlone()
        } else if let transactionLock {
            try transactionLock.lockExclusive()
        }
        var committed = false
        defer {
            if locking == .perTransaction { transactionLock?.unlockExclusive() }
            // Not reopened (a failure before the rename): others may open the old file as it was.
            if lifetimeLock >= 0 && retainedLockFile != lifetimeLock { closeFile(lifetimeLock) }
            if !committed, openHandle == nil, locking == .lmdb { try? reopenHoldingGate() }
        }
        removeStaleReplacements()
        let directory =
            path + "/" + Self.replacementDirectoryPrefix
            + String(UInt64.random(in: 1...UInt64.max), radix: 36)
        let result = try buildReplacement(in: directory, mapSize: mapSize, build)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The commit point. Per-transaction mode raises the generation first: a crash between the
        // two makes other processes reopen the same file, never keep a replaced one.
        if locking == .perTransaction, let transactionLock { try transactionLock.bumpGeneration() }
        guard rename(directory + "/data.mdb", path + "/data.mdb") == 0 else {
            throw LMDBError.system(errno: errno)
        }
        committed = true
        syncDirectory(path)
        // Reopen on the new file now. In lmdb mode that is while this process still holds the
        // lifetime lock alone, so the open initializes `lock.mdb` afresh for the new file (a
        // process waiting to open must not inherit the old file's transaction ids); the lock the
        // handle then holds rides on `lifetimeLock`, kept until the handle closes.
        // Should the reopen fail, the descriptor stays held (other processes keep waiting) rather
        // than let one open on a lock file that still describes the old file.
        if lifetimeLock >= 0 { retainedLockFile = lifetimeLock }
        if let handle = openHandle { try shutDown(handle, suspending: true) }
        try reopenHoldingGate(holdingTransactionLock: locking == .perTransaction)
        return result
    }

    /// In `lmdb` mode, closes this process's handle and takes LMDB's lifetime lock (byte 0 of
    /// `lock.mdb`) exclusive, which succeeds only while no other process has the store open;
    /// returns the descriptor that holds it. Throws ``LMDBError/inUseByAnotherProcess(path:pid:)``.
    private func holdLifetimeLockAlone() throws(LMDBError) -> Int32 {
        if let handle = openHandle { try shutDown(handle, suspending: true) }
        let descriptor = openFile(path + "/lock.mdb", O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw LMDBError.system(errno: errno) }
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 1
        if fcntl(descriptor, F_SETLK, &request) == 0 { return descriptor }
        let failure = errno
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = 0
        probe.l_len = 1
        let holder: Int32? =
            fcntl(descriptor, F_GETLK, &probe) == 0 && probe.l_type != Int16(F_UNLCK)
            ? Int32(probe.l_pid) : nil
        closeFile(descriptor)
        guard failure == EAGAIN || failure == EACCES else { throw LMDBError.system(errno: failure) }
        throw LMDBError.inUseByAnotherProcess(path: path, pid: holder ?? 0)
    }

    /// Opens the fresh environment in `directory` and the read snapshot of the current file,
    /// runs `build`, and flushes and closes the fresh one; on any failure, removes `directory`.
    private func buildReplacement<R>(
        in directory: String, mapSize: Int,
        _ build: (_ current: Environment, _ replacement: Environment) throws -> R
    ) throws -> R {
        var settings = configuration
        settings.durability = .deferred
        settings.locking = .perTransaction
        settings.perTransactionCoordination = false
        settings.readOnly = false
        settings.initialMapSize = min(max(mapSize, configuration.initialMapSize), configuration.maxMapSize)
        do {
            guard
                mkdir(
                    directory,
                    mode_t(Int(configuration.fileMode) | (Int(configuration.fileMode) & 0o444) >> 2)) == 0
            else { throw LMDBError.system(errno: errno) }
            let replacement = try Environment.open(path: directory, configuration: settings)
            let result: R
            do {
                guard replacement.databases == databases else { throw LMDBError.badDatabaseHandle }
                let snapshot = try Environment.openSnapshot(
                    path: path, names: configuration.databases, maxDatabases: configuration.maxDatabases,
                    expecting: databases)
                // Inside the build this thread is in a transaction: a write of this environment
                // is refused as nested, and a read goes to the snapshot's handle.
                replacementSnapshot = snapshot
                depth.value = 1
                defer {
                    depth.value = 0
                    replacementSnapshot = nil
                }
                result = try build(snapshot, replacement)
                try replacement.sync()
            } catch {
                try? replacement.close()
                throw error
            }
            try replacement.close()
            return result
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// A private read-only environment on the data file at `path` (`MDB_NOLOCK`: the caller keeps
    /// every writer out), with `names` opened in order, which must get the handles `expecting` holds.
    private static func openSnapshot(
        path: String, names: [String], maxDatabases: Int, expecting: DatabaseTable
    ) throws(LMDBError) -> Environment {
        var raw: OpaquePointer?
        try check(mdb_env_create(&raw))
        guard let handle = raw else { throw LMDBError.system(errno: ENOMEM) }
        let environment = Environment(
            handle: handle, path: path, configuration: Configuration(databases: names), databases: expecting,
            isReadOnly: true, locking: .perTransaction, transactionLock: nil, isPrivate: true)
        try check(mdb_env_set_maxdbs(handle, MDB_dbi(maxDatabases)))
        try check(mdb_env_open(handle, path, UInt32(MDB_RDONLY | MDB_NOLOCK | MDB_NOTLS), 0o600))
        // Committed, so every later read transaction of the handle can use them.
        let opening = try Environment.beginOpening(handle, readOnly: true)
        for name in names {
            var dbi: MDB_dbi = 0
            let rc = mdb_dbi_open(opening, name, 0, &dbi)
            if rc != 0 || dbi != expecting[name]?.dbi {
                mdb_txn_abort(opening)
                throw rc != 0 ? LMDBError(code: rc) : LMDBError.badDatabaseHandle
            }
        }
        try check(mdb_txn_commit(opening))
        return environment
    }

    /// Removes the replacement directories a replacement cut short left behind; called while
    /// holding what keeps any other replacement from running.
    private func removeStaleReplacements() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        for name in names where name.hasPrefix(Self.replacementDirectoryPrefix) {
            try? FileManager.default.removeItem(atPath: path + "/" + name)
        }
    }

    /// `fsync(2)` of a directory, so a rename in it is on disk; best effort (some filesystems
    /// refuse to sync a directory, and the rename itself is already atomic).
    private func syncDirectory(_ directory: String) {
        let descriptor = openFile(directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        closeFile(descriptor)
    }
}

/// `open(2)`, named apart from ``Environment``'s own `open` and `close`.
func openFile(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }

/// `close(2)`, named apart from ``Environment/close()``.
func closeFile(_ descriptor: Int32) { _ = close(descriptor) }
