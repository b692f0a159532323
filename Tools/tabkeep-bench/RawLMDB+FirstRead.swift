// LMDB's C API: Debian's liblmdb on Linux, LMDB compiled from source on Apple platforms.
#if canImport(LMDB)
    import LMDB
#else
    import CLMDB
#endif

extension RawLMDB {
    /// How raw LMDB's first read is taken: LMDB's own lock file, or none (`MDB_NOLOCK`, how a
    /// per-transaction store opens).
    enum FirstReadLocking {
        case lockFile, noLock
    }

    /// The least an app must do for its first read with liblmdb: a read-only environment (the map
    /// size the file records), a read transaction opening the database without creating it, one
    /// `mdb_get`, then everything closed again. Returns the value's size.
    static func firstRead(path: String, key: [UInt8], locking: FirstReadLocking = .lockFile) throws -> Int {
        var raw: OpaquePointer?
        try check(mdb_env_create(&raw), "mdb_env_create")
        guard let env = raw else { throw BenchError("mdb_env_create returned no environment") }
        defer { mdb_env_close(env) }
        try check(mdb_env_set_maxdbs(env, 4), "mdb_env_set_maxdbs")
        var flags = UInt32(MDB_RDONLY) | UInt32(MDB_NOTLS)
        if locking == .noLock { flags |= UInt32(MDB_NOLOCK) }
        try check(mdb_env_open(env, path, flags, 0o600), "mdb_env_open")
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
        defer { mdb_txn_abort(txn) }
        var dbi: MDB_dbi = 0
        try check(mdb_dbi_open(txn, "documents", 0, &dbi), "mdb_dbi_open")
        var data = MDB_val()
        let rc = key.withUnsafeBytes { bytes in
            var k = MDB_val(
                mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            return mdb_get(txn, dbi, &k, &data)
        }
        try check(rc, "mdb_get")
        return data.mv_size
    }
}
