// LMDB's C API: Debian's liblmdb on Linux, LMDB compiled from source on Apple platforms.
#if canImport(LMDB)
    internal import LMDB
#else
    internal import CLMDB
#endif
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open LMDB environment: one directory holding `data.mdb` and `lock.mdb`.
///
/// ```swift
/// let env = try Environment.open(path: dir, configuration: .init(databases: ["items"]))
/// let items = try env.database("items")
/// try env.write { txn in try txn.put(items, key: Array("a".utf8), value: [1, 2, 3]) }
/// let value = try env.read { txn in try txn.get(items, key: Array("a".utf8)) }
/// ```
///
/// Concurrency, stated: any number of read transactions run at once from any thread (the
/// environment is always opened with `MDB_NOTLS`, so reader slots follow the transaction, not the
/// thread); write transactions of this process are serialized by a lock taken before
/// `mdb_txn_begin`. Transactions are closures that cannot escape and cannot span an `await`.
/// In ``Locking/perTransaction`` mode a read also waits for a write of any process and a write
/// for every read (see ``Locking``).
///
/// One environment per path per process: LMDB forbids opening a path twice, so ``open(path:configuration:)``
/// hands back the live environment when the path is already open. The environment closes when
/// the last reference to it goes away, or at ``close()``.
///
/// ``suspend()`` closes the `MDB_env` (no lock, no descriptor left on the store's files) and keeps
/// the object: the next call that reaches LMDB reopens it, see `Environment+Suspend.swift`.
///
/// `@unchecked Sendable`: it owns an `MDB_env*`, which LMDB makes thread-safe with `MDB_NOTLS`.
public final class Environment: @unchecked Sendable {
    /// The `MDB_env*`, nil while suspended or closed: written only with `gate` held exclusive.
    var openHandle: OpaquePointer?
    /// How many times the `MDB_env` has been opened: 1, plus one for every reopen after
    /// ``suspend()``. Written with `gate` held exclusive, so stable inside any transaction.
    public internal(set) var openings = 1
    /// The open `MDB_env*`; valid only inside a call that holds `gate` shared (see `enter()`).
    var handle: OpaquePointer { openHandle! }
    /// Held shared by every call that reaches LMDB, exclusive by suspend and close: they wait for
    /// every transaction of this environment to end.
    let gate = OpenGate()
    /// Set by ``close()``: every later call throws ``LMDBError/closed(path:)``.
    var isClosed = false
    /// The directory, as a canonical absolute path.
    public let path: String
    /// The configuration the environment was opened with.
    public let configuration: Configuration
    /// The longest key LMDB accepts, in bytes (`mdb_env_get_maxkeysize`, 511 by default).
    public let maxKeySize: Int
    let databases: [String: Database]
    let writerLock = WriterLock()
    /// Reset read transactions ready to renew, as bit patterns (a pointer is not Sendable).
    let readerPool = Mutex<[UInt]>([])
    /// How many reset read transactions are kept; each holds a reader slot.
    static let maxPooledReaders = 8
    let mapLock = MapLock()
    let depth = ThreadDepth()
    /// Opened `MDB_RDONLY` because the filesystem is read-only: reads work, writes throw `EROFS`.
    let isReadOnly: Bool
    /// The last transaction id seen at a suspend or close, for ``lastTransactionID`` after a close.
    let lastSeenTransactionID = Atomic<Int>(0)
    /// The store's locking mode, as recorded in it (see ``Locking``).
    public let locking: Locking
    /// The lock held for each transaction's life in ``Locking/perTransaction`` mode; nil in `lmdb`
    /// mode (and in the test that switches the coordination off).
    let transactionLock: TransactionLock?

    /// The lock file of ``Locking/perTransaction`` mode, in the store's directory: its presence is
    /// how a store records that mode.
    public static let transactionLockFileName = "transactions.lock"

    private init(
        handle: OpaquePointer, path: String, configuration: Configuration, databases: [String: Database],
        isReadOnly: Bool, locking: Locking, transactionLock: TransactionLock?
    ) {
        self.isReadOnly = isReadOnly
        self.locking = locking
        self.transactionLock = transactionLock
        self.openHandle = handle
        self.path = path
        self.configuration = configuration
        self.databases = databases
        self.maxKeySize = Int(mdb_env_get_maxkeysize(handle))
    }

    deinit {
        for txn in readerPool.withLock({ $0 }) { mdb_txn_abort(OpaquePointer(bitPattern: txn)) }
        if let handle = openHandle {
            // Until mdb_env_close returns, the path is closing: a concurrent open waits for it.
            Environment.registry.closing(path, handle: handle) { mdb_env_close(handle) }
        } else if !isClosed {
            Environment.registry.forget(path, ObjectIdentifier(self))
        }
    }

    /// Opens the environment in `path`, creating the directory and the files if missing, or hands
    /// back the environment already open at that path in this process.
    ///
    /// Stale reader slots left by dead processes are cleared on open (`mdb_reader_check`), and
    /// every named database of the configuration is opened (created if missing) in one transaction.
    /// On a read-only filesystem (`EROFS`) it opens `MDB_RDONLY`: reads work, writes throw `EROFS`.
    ///
    /// When the path is already open, `configuration` must match the open one in everything but
    /// ``Configuration/initialMapSize`` (the live map keeps its size) and may name fewer
    /// ``Configuration/databases``; another durability, maximum map size, reader or database
    /// count, or file mode throws ``LMDBError/configurationMismatch(path:setting:)``, and a
    /// database the open environment lacks throws ``LMDBError/unknownDatabase(_:)``. When the
    /// path's last environment is being closed at that instant, this waits for the close and
    /// opens the path afresh. Wraps `mdb_env_create`, `mdb_env_open` and `mdb_dbi_open`.
    public static func open(path: String, configuration: Configuration = .init()) throws(LMDBError)
        -> Environment
    {
        try open(path: path, configuration: configuration) { (_: OpaquePointer) throws(LMDBError) in }
    }

    /// ``open(path:configuration:)``, checking the store before anything is created or written: when
    /// this call opens the path (not when it hands back the environment already open here), the
    /// value of `key` in `database` is read in the open's first transaction, a read-only one, and
    /// passed to `accept` (nil when the file, the database or the key is missing). If `accept`
    /// returns false, the handle is closed again and ``LMDBError/openRefused(path:)`` is thrown:
    /// `data.mdb` is left byte-identical (LMDB keeps its reader table in `lock.mdb`, which any open
    /// initializes), and no missing database is created.
    ///
    /// It is how a store checks its schema in the same open that then serves it, instead of
    /// opening and mapping the file a second time first (``peek(path:database:key:)``).
    public static func open(
        path: String, configuration: Configuration = .init(), probing database: String, key: [UInt8],
        accept: ([UInt8]?) -> Bool
    ) throws(LMDBError) -> Environment {
        try open(path: path, configuration: configuration) { (txn: OpaquePointer) throws(LMDBError) in
            guard accept(try value(txn, database: database, key: key)) else {
                throw LMDBError.openRefused(path: path)
            }
        }
    }

    /// The value of `key` in the named `database` as `txn` sees it, or nil when the database or the
    /// key is missing; opens no database it does not find.
    private static func value(_ txn: OpaquePointer, database: String, key: [UInt8]) throws(LMDBError)
        -> [UInt8]?
    {
        var dbi: MDB_dbi = 0
        let opened = mdb_dbi_open(txn, database, 0, &dbi)
        if opened == MDB_NOTFOUND { return nil }
        try check(opened)
        var data = MDB_val()
        let found = key.withUnsafeBytes { bytes in
            var k = MDB_val(
                mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            return mdb_get(txn, dbi, &k, &data)
        }
        if found == MDB_NOTFOUND { return nil }
        try check(found)
        return Array(UnsafeRawBufferPointer(start: data.mv_data, count: data.mv_size))
    }

    /// Opens or reuses the environment at `path`; `probe` runs in the first, read-only, transaction
    /// of a new handle, before anything is created, and refuses the store by throwing.
    private static func open(
        path: String, configuration: Configuration, probe: (OpaquePointer) throws(LMDBError) -> Void
    ) throws(LMDBError) -> Environment {
        // A TABKEEP_LOCKING that names no mode is refused before the directory is created.
        if configuration.locking == nil { _ = try Locking.defaultForNewStores() }
        let canonical = try prepareDirectory(
            path, mode: configuration.fileMode, create: !configuration.readOnly)
        return try registry.open(
            canonical,
            reuse: { (existing) throws(LMDBError) in try existing.checkReuse(with: configuration) },
            make: { () throws(LMDBError) in
                try openNew(path: canonical, configuration: configuration, probe: probe)
            })
    }

    /// Throws unless an open of this environment's path with `other` may share it.
    private func checkReuse(with other: Configuration) throws(LMDBError) {
        let mine = configuration
        let differing: [(String, Bool)] = [
            ("durability", other.durability != mine.durability),
            ("maximum map size", other.maxMapSize != mine.maxMapSize),
            ("reader count", other.maxReaders != mine.maxReaders),
            ("database count", other.maxDatabases != mine.maxDatabases),
            ("file mode", other.fileMode != mine.fileMode),
        ]
        if let (setting, _) = differing.first(where: \.1) {
            throw LMDBError.configurationMismatch(path: path, setting: setting)
        }
        if let requested = other.locking, requested != locking {
            throw LMDBError.lockingMismatch(path: path, store: locking, requested: requested)
        }
        // A read-only open may share a writable environment (the caller then writes nothing); a
        // writable open cannot share a read-only one.
        if mine.readOnly && !other.readOnly {
            throw LMDBError.configurationMismatch(path: path, setting: "read-only access")
        }
        for name in other.databases where databases[name] == nil { throw LMDBError.unknownDatabase(name) }
    }

    private static func openNew(
        path: String, configuration: Configuration, probe: (OpaquePointer) throws(LMDBError) -> Void
    ) throws(LMDBError) -> Environment {
        let opened: (OpaquePointer, [String: Database])
        var readOnly = false
        let locking = try storeLocking(path: path, requested: configuration.locking)
        var transactionLock: TransactionLock?
        do {
            transactionLock = try makeTransactionLock(
                path: path, locking: locking, configuration: configuration)
            opened = try makeHandle(
                path: path, configuration: configuration, readOnly: configuration.readOnly, locking: locking,
                transactionLock: transactionLock, probe: probe)
            readOnly = configuration.readOnly
        } catch .system(errno: EROFS) {
            // A store on a read-only filesystem still reads (LMDB then needs no lock file).
            transactionLock = try makeTransactionLock(
                path: path, locking: locking, configuration: configuration)
            opened = try makeHandle(
                path: path, configuration: configuration, readOnly: true, locking: locking,
                transactionLock: transactionLock, probe: probe)
            readOnly = true
        }
        return Environment(
            handle: opened.0, path: path, configuration: configuration, databases: opened.1,
            isReadOnly: readOnly, locking: locking, transactionLock: transactionLock)
    }

    /// The locking mode of the store at `path`: ``Locking/perTransaction`` when its lock file is
    /// there, ``Locking/lmdb`` when LMDB's `lock.mdb` is (every open in that mode makes it, and
    /// it is never removed), and for a new store, or a data file copied alone, `requested` or the
    /// default. Naming the other mode of an existing store throws.
    private static func storeLocking(path: String, requested: Locking?) throws(LMDBError) -> Locking {
        let recorded: Locking? =
            if access(path + "/" + transactionLockFileName, F_OK) == 0 {
                .perTransaction
            } else if access(path + "/lock.mdb", F_OK) == 0 {
                .lmdb
            } else {
                nil
            }
        guard let recorded else {
            if let requested { return requested }
            return try Locking.defaultForNewStores()
        }
        if let requested, requested != recorded {
            throw LMDBError.lockingMismatch(path: path, store: recorded, requested: requested)
        }
        return recorded
    }

    /// The transaction lock of a ``Locking/perTransaction`` store (its lock file made first, so a
    /// store is never created without the record of its mode), or nil in `lmdb` mode. Refuses a
    /// store another process holds open in `lmdb` mode.
    private static func makeTransactionLock(
        path: String, locking: Locking, configuration: Configuration
    ) throws(LMDBError) -> TransactionLock? {
        guard locking == .perTransaction else { return nil }
        let file = path + "/" + transactionLockFileName
        let existed = access(file, F_OK) == 0
        let lock = try TransactionLock(path: file, mode: configuration.fileMode)
        // A process that opened the new store in lmdb mode before this lock file existed.
        if TransactionLock.lmdbModeHolder(of: path + "/lock.mdb") != nil {
            if !existed { unlink(file) }
            throw LMDBError.lockingMismatch(path: path, store: .lmdb, requested: .perTransaction)
        }
        return configuration.perTransactionCoordination ? lock : nil
    }

    /// Opens an `MDB_env` at `path` and its named databases; closes it again if that fails.
    /// `probe` runs in the first, read-only, transaction, before any database is created.
    static func makeHandle(
        path: String, configuration: Configuration, readOnly: Bool, locking: Locking,
        transactionLock: TransactionLock?,
        probe: (OpaquePointer) throws(LMDBError) -> Void = { (_: OpaquePointer) throws(LMDBError) in }
    )
        throws(LMDBError) -> (OpaquePointer, [String: Database])
    {
        var raw: OpaquePointer?
        try check(mdb_env_create(&raw))
        guard let handle = raw else { throw LMDBError.system(errno: ENOMEM) }
        let lockPath = path + "/lock.mdb"
        let hadLockFile = access(lockPath, F_OK) == 0
        var flags = UInt32(MDB_NOTLS) | (readOnly ? UInt32(MDB_RDONLY) : 0)
        if locking == .perTransaction { flags |= UInt32(MDB_NOLOCK) }
        switch configuration.durability {
        case .full: break
        case .metaAsync: flags |= UInt32(MDB_NOMETASYNC)
        case .deferred: flags |= UInt32(MDB_NOSYNC)
        }
        let opened: Result<[String: Database], LMDBError> = {
            do throws(LMDBError) {
                try check(mdb_env_set_maxreaders(handle, UInt32(configuration.maxReaders)))
                try check(mdb_env_set_maxdbs(handle, MDB_dbi(configuration.maxDatabases)))
                try check(mdb_env_set_mapsize(handle, configuration.initialMapSize))
                try check(mdb_env_open(handle, path, flags, mdb_mode_t(configuration.fileMode)))
                var dead: Int32 = 0
                try check(mdb_reader_check(handle, &dead))
                // A process that had the store open in per-transaction mode made its lock file
                // after this open chose lmdb mode: the two must not share the store.
                if locking == .lmdb && access(path + "/" + transactionLockFileName, F_OK) == 0 {
                    throw LMDBError.lockingMismatch(path: path, store: .perTransaction, requested: .lmdb)
                }
                return .success(
                    try openDatabases(
                        handle, names: configuration.databases, create: !configuration.readOnly,
                        transactionLock: transactionLock, probe: probe)
                )
            } catch {
                return .failure(error)
            }
        }()
        switch opened {
        case .success(let databases):
            return (handle, databases)
        case .failure(let error):
            mdb_env_close(handle)
            // A file that is not an LMDB environment (or not one this liblmdb reads) is refused
            // after `mdb_env_open` has created its lock file: remove the lock file this open made,
            // so a refused open leaves the directory as it found it. No other process can be using
            // a lock file for a file LMDB refuses.
            if !hadLockFile, error == .invalidFile || error == .versionMismatch { unlink(lockPath) }
            throw error
        }
    }

    /// Opens every named database, first without creating (so a read-only store still opens), then
    /// creating the missing ones in one write transaction. `probe` runs first, in the read-only
    /// transaction; when it throws, nothing has been created. In per-transaction mode each of these
    /// transactions holds `transactionLock` like every other one.
    private static func openDatabases(
        _ env: OpaquePointer, names: [String], create creating: Bool, transactionLock: TransactionLock?,
        probe: (OpaquePointer) throws(LMDBError) -> Void
    )
        throws(LMDBError) -> [String: Database]
    {
        /// Runs `body` holding the transaction lock, if the store has one, on the side `writing` names.
        func held<R>(writing: Bool, _ body: () throws(LMDBError) -> R) throws(LMDBError) -> R {
            guard let transactionLock else { return try body() }
            if writing { try transactionLock.lockExclusive() } else { try transactionLock.lockShared() }
            defer { if writing { transactionLock.unlockExclusive() } else { transactionLock.unlockShared() } }
            return try body()
        }
        /// Runs `probe` in `txn`, aborting `txn` if it throws.
        func probed(_ txn: OpaquePointer?) throws(LMDBError) {
            do throws(LMDBError) {
                guard let txn else { throw LMDBError.badTransaction }
                try probe(txn)
            } catch {
                mdb_txn_abort(txn)
                throw error
            }
        }
        guard !names.isEmpty else {
            try held(writing: false) { () throws(LMDBError) in
                var txn: OpaquePointer?
                try check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn))
                try probed(txn)
                mdb_txn_abort(txn)
            }
            return [:]
        }
        /// Opens `names` in one transaction (a write one when `create`); a missing database is
        /// left out when `skippingMissing`, else it ends the pass with nil.
        func pass(create: Bool, skippingMissing: Bool) throws(LMDBError) -> [String: Database]? {
            try held(writing: create) { () throws(LMDBError) -> [String: Database]? in
                var txn: OpaquePointer?
                try check(mdb_txn_begin(env, nil, create ? 0 : UInt32(MDB_RDONLY), &txn))
                if !create { try probed(txn) }
                var result: [String: Database] = [:]
                for name in names {
                    var dbi: MDB_dbi = 0
                    let rc = mdb_dbi_open(txn, name, create ? UInt32(MDB_CREATE) : 0, &dbi)
                    if rc == MDB_NOTFOUND && !create {
                        if skippingMissing { continue }
                        mdb_txn_abort(txn)
                        return nil
                    }
                    if rc != 0 {
                        mdb_txn_abort(txn)
                        throw LMDBError(code: rc)
                    }
                    result[name] = Database(name: name, dbi: dbi)
                }
                // Committed, not aborted: an aborted transaction closes the handles it opened (mdb_dbi_open).
                try check(mdb_txn_commit(txn))
                return result
            }
        }
        // Read-only: open what exists, leave out what does not.
        if !creating { return try pass(create: false, skippingMissing: true) ?? [:] }
        for create in [false, true] {
            if let opened = try pass(create: create, skippingMissing: false) { return opened }
        }
        throw LMDBError.notFound
    }

    /// Creates the directory (mode `fileMode` plus execute bits) if missing and returns its canonical path.
    private static func prepareDirectory(_ path: String, mode: UInt16, create: Bool = true) throws(LMDBError)
        -> String
    {
        guard !path.isEmpty else { throw LMDBError.system(errno: ENOENT) }
        // stat(2) directly: the same answer as FileManager.fileExists (links followed), one call.
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw LMDBError.system(errno: ENOTDIR) }
        } else if !create {
            throw LMDBError.system(errno: ENOENT)
        } else {
            let directoryMode = Int(mode) | (Int(mode) & 0o444) >> 2
            do {
                try FileManager.default.createDirectory(
                    atPath: path, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: directoryMode])
            } catch {
                throw LMDBError.system(errno: errno == 0 ? EACCES : errno)
            }
        }
        guard let resolved = realpath(path, nil) else { throw LMDBError.system(errno: errno) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The handle of a named database opened with the environment.
    public func database(_ name: String) throws(LMDBError) -> Database {
        guard let database = databases[name] else { throw LMDBError.unknownDatabase(name) }
        return database
    }

    /// The names of the databases opened with the environment, sorted.
    public var databaseNames: [String] { databases.keys.sorted() }

    // MARK: Transactions

    /// Runs `body` in a read-only transaction over one consistent snapshot.
    ///
    /// Read transactions run concurrently with each other and with the writer, from any thread.
    /// Values handed out as pointers are valid only inside `body`.
    public func read<R>(_ body: (borrowing Transaction) throws -> R) throws -> R {
        let outer = depth.value
        if outer == 0 { try enter() }
        defer { if outer == 0 { gate.unlock() } }
        // Per-transaction mode: a read inside another transaction of this thread is covered by its lock.
        if outer == 0, let transactionLock { try transactionLock.lockShared() }
        defer { if outer == 0, let transactionLock { transactionLock.unlockShared() } }
        depth.value = outer + 2
        defer { depth.value = outer }
        mapLock.lockShared()
        defer { mapLock.unlock() }
        let txn = try beginRead(nested: outer != 0)
        defer { endRead(txn) }
        return try body(Transaction(handle: txn, environment: self, isWritable: false))
    }

    /// Renews a pooled read transaction (`mdb_txn_renew`: it keeps its reader slot, so no slot is
    /// searched for and nothing allocated), or begins a new one.
    private func beginRead(nested: Bool) throws(LMDBError) -> OpaquePointer {
        let pooled = readerPool.withLock { $0.popLast() }
        if let pooled, let txn = OpaquePointer(bitPattern: pooled) {
            if mdb_txn_renew(txn) == 0 { return txn }
            mdb_txn_abort(txn)  // MAP_RESIZED, say: begin() below adopts it
        }
        return try begin(readOnly: true, nested: nested)
    }

    /// Resets a finished read transaction into the pool (`mdb_txn_reset`), or aborts it when the pool is full.
    private func endRead(_ txn: OpaquePointer) {
        mdb_txn_reset(txn)
        let kept = readerPool.withLock { pool in
            guard pool.count < Self.maxPooledReaders else { return false }
            pool.append(UInt(bitPattern: txn))
            return true
        }
        if !kept { mdb_txn_abort(txn) }
    }

    /// Runs `body` in a write transaction: it commits when `body` returns and aborts when it throws.
    ///
    /// Writers in this process are serialized. The closure may run more than once: when the map is
    /// full, the transaction is dropped, the map doubles (up to ``Configuration/maxMapSize``) and
    /// `body` runs again, so it must touch nothing outside its transaction. Starting a write inside
    /// another transaction on the same thread throws ``LMDBError/nestedTransaction``. On a store
    /// opened from a read-only filesystem it throws `EROFS` ("Read-only file system").
    public func write<R>(_ body: (borrowing Transaction) throws -> R) throws -> R {
        guard !isReadOnly else { throw LMDBError.system(errno: EROFS) }
        guard depth.value == 0 else { throw LMDBError.nestedTransaction }
        try enter()
        defer { gate.unlock() }
        depth.value = 1
        defer { depth.value = 0 }
        writerLock.lock()
        defer { writerLock.unlock() }
        if let transactionLock { try transactionLock.lockExclusive() }
        defer { if let transactionLock { transactionLock.unlockExclusive() } }
        mapLock.lockShared()
        defer { mapLock.unlock() }
        while true {
            let txn = try begin(readOnly: false, nested: false)
            let result: R
            do {
                result = try body(Transaction(handle: txn, environment: self, isWritable: true))
            } catch LMDBError.mapFull {
                mdb_txn_abort(txn)
                try growMap()
                continue
            } catch {
                mdb_txn_abort(txn)
                throw error
            }
            // A failed commit frees the transaction: never abort after it.
            let rc = mdb_txn_commit(txn)
            if rc == MDB_MAP_FULL {
                try growMap()
                continue
            }
            try check(rc)
            return result
        }
    }

    /// Begins a transaction, adopting a map grown by another process (`MDB_MAP_RESIZED`) and
    /// clearing stale reader slots when every slot is taken (`MDB_READERS_FULL`).
    private func begin(readOnly: Bool, nested: Bool) throws(LMDBError) -> OpaquePointer {
        var attempts = 0
        while true {
            var txn: OpaquePointer?
            let rc = mdb_txn_begin(handle, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn)
            if rc == 0, let txn { return txn }
            attempts += 1
            guard attempts < 4 else { throw LMDBError(code: rc) }
            switch rc {
            case MDB_MAP_RESIZED where !nested:
                try withExclusiveMap { () throws(LMDBError) in try check(mdb_env_set_mapsize(handle, 0)) }
            case MDB_READERS_FULL:
                var dead: Int32 = 0
                try check(mdb_reader_check(handle, &dead))
                if dead == 0 { throw LMDBError.readersFull }
            default:
                throw LMDBError(code: rc)
            }
        }
    }

    /// Doubles the map, up to the configured maximum; throws `mapFull` at the maximum.
    private func growMap() throws(LMDBError) {
        let current = try infoHoldingMapLock().mapSize
        guard current < configuration.maxMapSize else { throw LMDBError.mapFull }
        let next = min(max(current, 1 << 16) * 2, configuration.maxMapSize)
        try withExclusiveMap { () throws(LMDBError) in try check(mdb_env_set_mapsize(handle, next)) }
    }

    /// Grows the map to at least `bytes` (up to the configured maximum) before a large write, so the
    /// write does not run several times while the map doubles. Wraps `mdb_env_set_mapsize`.
    public func reserveMapSize(atLeast bytes: Int) throws(LMDBError) {
        guard depth.value == 0 else { throw LMDBError.nestedTransaction }
        try enter()
        defer { gate.unlock() }
        writerLock.lock()
        defer { writerLock.unlock() }
        let target = min(bytes, configuration.maxMapSize)
        mapLock.lockShared()
        let current = Result { () throws(LMDBError) in try infoHoldingMapLock().mapSize }
        mapLock.unlock()
        guard try current.get() < target else { return }
        mapLock.lockExclusive()
        defer { mapLock.unlock() }
        try check(mdb_env_set_mapsize(handle, target))
    }

    /// Opens the environment at `path` read-only and without touching its lock file
    /// (`MDB_RDONLY | MDB_NOLOCK`), reads one value and closes it, leaving every file
    /// byte-identical. Returns nil when the directory, the database or the key is missing.
    ///
    /// It maps the file a second time before the real open; to check a store on the way in,
    /// ``open(path:configuration:probing:key:accept:)`` reads the value in the open itself.
    public static func peek(path: String, database name: String, key: [UInt8]) throws(LMDBError) -> [UInt8]? {
        guard FileManager.default.fileExists(atPath: path + "/data.mdb") else { return nil }
        var raw: OpaquePointer?
        try check(mdb_env_create(&raw))
        guard let handle = raw else { throw LMDBError.system(errno: ENOMEM) }
        defer { mdb_env_close(handle) }
        try check(mdb_env_set_maxdbs(handle, 64))
        try check(mdb_env_open(handle, path, UInt32(MDB_RDONLY | MDB_NOLOCK | MDB_NOTLS), 0o600))
        var begun: OpaquePointer?
        try check(mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &begun))
        guard let txn = begun else { throw LMDBError.badTransaction }
        defer { mdb_txn_abort(txn) }
        return try value(txn, database: name, key: key)
    }

    /// The version of the LMDB library LMDBKit runs on, as `mdb_version` gives it
    /// (for example "LMDB 0.9.31: (July 10, 2023)"). Wraps `mdb_version`.
    public static var libraryVersion: String { String(cString: mdb_version(nil, nil, nil)) }

    /// Whether `path` is open in this process right now.
    public static func isOpen(path: String) -> Bool {
        guard let resolved = realpath(path, nil) else { return false }
        defer { free(resolved) }
        return registry.isOpen(String(cString: resolved))
    }

    /// Trades this thread's shared hold of the map lock for an exclusive one around `body`.
    private func withExclusiveMap(_ body: () throws(LMDBError) -> Void) throws(LMDBError) {
        mapLock.unlock()
        mapLock.lockExclusive()
        defer {
            mapLock.unlock()
            mapLock.lockShared()
        }
        try body()
    }

    // MARK: Maintenance

    /// Flushes every commit to disk; needed only with ``Durability/deferred``. Wraps `mdb_env_sync`.
    public func sync() throws(LMDBError) {
        let entered = try enterIfOutermost()
        defer { if entered { gate.unlock() } }
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
    private func infoHoldingMapLock() throws(LMDBError) -> EnvironmentInfo {
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

    // MARK: The registry of open paths

    static let registry = EnvironmentRegistry()
}

/// Creates `path` for writing with `O_CREAT | O_EXCL | O_NOFOLLOW` and `mode`: never an existing
/// file, never through a link. Returns the descriptor, or -1 with `errno` set.
private func createExclusively(_ path: String, mode: UInt16) -> Int32 {
    open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
}

/// `close(2)`, named apart from ``Environment/close()``.
@discardableResult
private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }
