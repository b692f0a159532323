import Foundation

#if canImport(LMDB)
    internal import LMDB
#else
    internal import CLMDB
#endif

/// Opening an environment: the one-per-path registry, the locking mode, the handle, the named
/// databases, and the schema probe that reads a value before anything is created.
extension Environment {
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
        try open(path: path, configuration: configuration, probing: database, keys: [key]) { accept($0[0]) }
    }

    /// ``open(path:configuration:probing:key:accept:)`` reading several keys of `database` in the
    /// open's first transaction: `accept` gets their values in the order of `keys`, nil for each
    /// one missing (all nil when the file or the database is). A store reads the records it
    /// needs at every open this way, in the transaction the open makes anyway.
    public static func open(
        path: String, configuration: Configuration = .init(), probing database: String, keys: [[UInt8]],
        accept: ([[UInt8]?]) -> Bool
    ) throws(LMDBError) -> Environment {
        try open(path: path, configuration: configuration) { (txn: OpaquePointer) throws(LMDBError) in
            guard accept(try values(txn, database: database, keys: keys)) else {
                throw LMDBError.openRefused(path: path)
            }
        }
    }

    /// The values of `keys` in the named `database` as `txn` sees it, nil for each key missing
    /// (every one when the database is); opens no database it does not find.
    private static func values(_ txn: OpaquePointer, database: String, keys: [[UInt8]]) throws(LMDBError)
        -> [[UInt8]?]
    {
        var dbi: MDB_dbi = 0
        let opened = database.withCString { mdb_dbi_open(txn, $0, 0, &dbi) }
        if opened == MDB_NOTFOUND { return keys.map { _ in nil } }
        try check(opened)
        var values: [[UInt8]?] = []
        values.reserveCapacity(keys.count)
        for key in keys {
            var data = MDB_val()
            let found = key.withUnsafeBytes { bytes in
                var k = MDB_val(
                    mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                return mdb_get(txn, dbi, &k, &data)
            }
            if found == MDB_NOTFOUND {
                values.append(nil)
                continue
            }
            try check(found)
            values.append(Array(UnsafeRawBufferPointer(start: data.mv_data, count: data.mv_size)))
        }
        return values
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
            EnvironmentRegistry.Key(canonical),
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
        let opened: (OpaquePointer, DatabaseTable)
        var readOnly = false
        let files = StoreFiles(path)
        // Each lock file looked up once: its presence records the store's mode.
        let hasTransactionLockFile = StoreFiles.exists(files.transactionLock)
        let hasLockFile = StoreFiles.exists(files.lock)
        let locking = try storeLocking(
            path: path, requested: configuration.locking, hasTransactionLockFile: hasTransactionLockFile,
            hasLockFile: hasLockFile)
        var transactionLock: TransactionLock?
        var generation: UInt64 = 0
        if configuration.writableOnFirstWrite && !configuration.readOnly,
            let deferred = try openReadOnlyUntilFirstWrite(
                files: files, configuration: configuration, locking: locking, hadLockFile: hasLockFile,
                hadTransactionLockFile: hasTransactionLockFile, probe: probe)
        {
            return deferred
        }
        do {
            transactionLock = try makeTransactionLock(
                files: files, existed: hasTransactionLockFile, locking: locking, configuration: configuration)
            generation = transactionLock?.generation ?? 0
            opened = try makeHandle(
                files: files, configuration: configuration, readOnly: configuration.readOnly,
                locking: locking, transactionLock: transactionLock, hadLockFile: hasLockFile, probe: probe)
            readOnly = configuration.readOnly
        } catch .system(errno: EROFS) {
            // A store on a read-only filesystem still reads (LMDB then needs no lock file).
            transactionLock = try makeTransactionLock(
                files: files, existed: true, locking: locking, configuration: configuration)
            generation = transactionLock?.generation ?? 0
            opened = try makeHandle(
                files: files, configuration: configuration, readOnly: true, locking: locking,
                transactionLock: transactionLock, hadLockFile: hasLockFile, probe: probe)
            readOnly = true
        }
        return Environment(
            handle: opened.0, path: path, configuration: configuration, databases: opened.1,
            isReadOnly: readOnly, locking: locking, transactionLock: transactionLock, generation: generation)
    }

    /// An environment whose handle is open `MDB_RDONLY` until its first write, or nil when the
    /// store cannot be opened so (no data file yet, or a named database missing, which a
    /// writable open creates): the caller then opens it for writing.
    private static func openReadOnlyUntilFirstWrite(
        files: StoreFiles, configuration: Configuration, locking: Locking, hadLockFile: Bool,
        hadTransactionLockFile: Bool, probe: (OpaquePointer) throws(LMDBError) -> Void
    ) throws(LMDBError) -> Environment? {
        // Per-transaction: no lock file is made for a store that has no data file yet (the
        // writable open makes it, and takes it back if an lmdb-mode process got there first).
        // A lock file that is there already is that store's: a missing data file then fails
        // the read-only open below (ENOENT), as it does in lmdb mode.
        if locking == .perTransaction && !hadTransactionLockFile && !StoreFiles.exists(files.data) {
            return nil
        }
        let transactionLock = try makeTransactionLock(
            files: files, existed: hadTransactionLockFile, locking: locking, configuration: configuration)
        let generation = transactionLock?.generation ?? 0
        var reading = configuration
        reading.readOnly = true
        let handle: OpaquePointer
        let databases: DatabaseTable
        do {
            (handle, databases) = try makeHandle(
                files: files, configuration: reading, readOnly: true, locking: locking,
                transactionLock: transactionLock, hadLockFile: hadLockFile, probe: probe)
        } catch .system(errno: EROFS) {
            return nil
        } catch .system(errno: ENOENT) {
            // No data file yet (an `MDB_RDONLY` open looks for it before it makes a lock file).
            return nil
        }
        // Every name opened (names are few and short: no set of them).
        let names = configuration.databases
        guard names.allSatisfy({ databases[$0] != nil }) else {
            mdb_env_close(handle)
            return nil
        }
        return Environment(
            handle: handle, path: files.directory, configuration: configuration, databases: databases,
            isReadOnly: false, locking: locking, transactionLock: transactionLock, generation: generation,
            handleIsReadOnly: true)
    }

    /// The locking mode of the store at `path`: ``Locking/perTransaction`` when its lock file is
    /// there, ``Locking/lmdb`` when LMDB's `lock.mdb` is (every open in that mode makes it, and
    /// it is never removed), and for a new store, or a data file copied alone, `requested` or the
    /// default. Naming the other mode of an existing store throws.
    private static func storeLocking(
        path: String, requested: Locking?, hasTransactionLockFile: Bool, hasLockFile: Bool
    ) throws(LMDBError) -> Locking {
        let recorded: Locking? =
            if hasTransactionLockFile {
                .perTransaction
            } else if hasLockFile {
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
    /// store another process holds open in `lmdb` mode. `existed`: whether the lock file was
    /// there when the open looked (a refused open removes the one it made).
    private static func makeTransactionLock(
        files: StoreFiles, existed: Bool, locking: Locking, configuration: Configuration
    ) throws(LMDBError) -> TransactionLock? {
        guard locking == .perTransaction else { return nil }
        let lock = try TransactionLock(path: files.transactionLock, mode: configuration.fileMode)
        // A process that opened the new store in lmdb mode before this lock file existed.
        if TransactionLock.lmdbModeHolder(of: files.lock) != nil {
            if !existed { unlink(files.transactionLock) }
            throw LMDBError.lockingMismatch(path: files.directory, store: .lmdb, requested: .perTransaction)
        }
        return configuration.perTransactionCoordination ? lock : nil
    }

    /// Opens an `MDB_env` in `files`' directory and its named databases; closes it again if that
    /// fails. `probe` runs in the first, read-only, transaction, before any database is created.
    /// `hadLockFile` is whether `lock.mdb` was there before this open, when the caller looked.
    static func makeHandle(
        files: StoreFiles, configuration: Configuration, readOnly: Bool, locking: Locking,
        transactionLock: TransactionLock?, hadLockFile: Bool? = nil,
        probe: (OpaquePointer) throws(LMDBError) -> Void = { (_: OpaquePointer) throws(LMDBError) in }
    )
        throws(LMDBError) -> (OpaquePointer, DatabaseTable)
    {
        var raw: OpaquePointer?
        try check(mdb_env_create(&raw))
        guard let handle = raw else { throw LMDBError.system(errno: ENOMEM) }
        let hadLockFile = hadLockFile ?? StoreFiles.exists(files.lock)
        var flags = UInt32(MDB_NOTLS) | (readOnly ? UInt32(MDB_RDONLY) : 0)
        if locking == .perTransaction { flags |= UInt32(MDB_NOLOCK) }
        switch configuration.durability {
        case .full: break
        case .metaAsync: flags |= UInt32(MDB_NOMETASYNC)
        case .deferred: flags |= UInt32(MDB_NOSYNC)
        }
        let opened: Result<DatabaseTable, LMDBError> = {
            do throws(LMDBError) {
                try check(mdb_env_set_maxreaders(handle, UInt32(configuration.maxReaders)))
                try check(mdb_env_set_maxdbs(handle, MDB_dbi(configuration.maxDatabases)))
                try check(mdb_env_set_mapsize(handle, configuration.initialMapSize))
                let mode = mdb_mode_t(configuration.fileMode)
                try check(mdb_env_open(handle, files.directoryPath, flags, mode))
                var dead: Int32 = 0
                try check(mdb_reader_check(handle, &dead))
                // A process that had the store open in per-transaction mode made its lock file
                // after this open chose lmdb mode: the two must not share the store.
                if locking == .lmdb && StoreFiles.exists(files.transactionLock) {
                    throw LMDBError.lockingMismatch(
                        path: files.directory, store: .perTransaction, requested: .lmdb)
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
            if !hadLockFile, error == .invalidFile || error == .versionMismatch { unlink(files.lock) }
            throw error
        }
    }

    /// Begins a transaction of a handle that is still being opened: no other transaction uses it.
    /// Another process may have grown the file past the map `mdb_env_open` made (a writer growing
    /// the map while this process reopens for its first write, say): the transaction then fails
    /// with `MDB_MAP_RESIZED`, and the handle adopts the size the newest meta page records and
    /// begins again, for as long as each adoption finds a larger map.
    static func beginOpening(_ env: OpaquePointer, readOnly: Bool) throws(LMDBError) -> OpaquePointer {
        var adopted = 0
        while true {
            var txn: OpaquePointer?
            let rc = mdb_txn_begin(env, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn)
            if rc == 0, let txn { return txn }
            guard rc == MDB_MAP_RESIZED else { throw LMDBError(code: rc) }
            var before = MDB_envinfo()
            try check(mdb_env_info(env, &before))
            try check(mdb_env_set_mapsize(env, 0))
            var after = MDB_envinfo()
            try check(mdb_env_info(env, &after))
            adopted += 1
            // The map only grows, up to its maximum: an adoption that finds no larger map, or more
            // adoptions than doublings could ever make, is a real failure.
            guard after.me_mapsize > before.me_mapsize, adopted < 64 else { throw LMDBError(code: rc) }
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
        throws(LMDBError) -> DatabaseTable
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
                let txn = try beginOpening(env, readOnly: true)
                try probed(txn)
                mdb_txn_abort(txn)
            }
            return DatabaseTable()
        }
        /// Opens `names` in one transaction (a write one when `create`); a missing database is
        /// left out when `skippingMissing`, else it ends the pass with nil.
        func pass(create: Bool, skippingMissing: Bool) throws(LMDBError) -> DatabaseTable? {
            try held(writing: create) { () throws(LMDBError) -> DatabaseTable? in
                let txn = try beginOpening(env, readOnly: !create)
                if !create { try probed(txn) }
                var result = DatabaseTable()
                result.reserveCapacity(names.count)
                for name in names {
                    var dbi: MDB_dbi = 0
                    let rc = name.withCString { mdb_dbi_open(txn, $0, create ? UInt32(MDB_CREATE) : 0, &dbi) }
                    if rc == MDB_NOTFOUND && !create {
                        if skippingMissing { continue }
                        mdb_txn_abort(txn)
                        return nil
                    }
                    if rc != 0 {
                        mdb_txn_abort(txn)
                        throw LMDBError(code: rc)
                    }
                    result.insert(Database(name: name, dbi: dbi))
                }
                // Committed, not aborted: an aborted transaction closes the handles it opened (mdb_dbi_open).
                try check(mdb_txn_commit(txn))
                return result
            }
        }
        // Read-only: open what exists, leave out what does not.
        if !creating { return try pass(create: false, skippingMissing: true) ?? DatabaseTable() }
        for create in [false, true] {
            if let opened = try pass(create: create, skippingMissing: false) { return opened }
        }
        throw LMDBError.notFound
    }

    /// Creates the directory (mode `fileMode` plus execute bits) if missing and returns its canonical path.
    static func prepareDirectory(_ path: String, mode: UInt16, create: Bool = true) throws(LMDBError)
        -> String
    {
        guard !path.isEmpty else { throw LMDBError.system(errno: ENOENT) }
        // One C copy of the path for stat(2) and realpath(3) (a string passed to C is copied at each call).
        let cPath = Array(path.utf8CString)
        // stat(2) directly: the same answer as FileManager.fileExists (links followed), one call.
        var status = stat()
        if stat(cPath, &status) == 0 {
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
        guard let resolved = realpath(cPath, nil) else { throw LMDBError.system(errno: errno) }
        defer { free(resolved) }
        return String(cString: resolved)
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
        let txn = try beginOpening(handle, readOnly: true)
        defer { mdb_txn_abort(txn) }
        return try values(txn, database: name, keys: [key])[0]
    }
}
