// LMDB's C API: Debian's liblmdb on Linux, LMDB compiled from source on Apple platforms.
#if canImport(LMDB)
    import LMDB
#else
    import CLMDB
#endif
import Foundation

/// The baseline: liblmdb called directly through CLMDB, holding the same key and document bytes
/// as TabKeep, with no decode and no bookkeeping (`dots`, `versions`, clock).
///
/// `@unchecked Sendable`: it owns an `MDB_env*` opened with `MDB_NOTLS`, which LMDB makes safe
/// across threads; writers are serialized by LMDB's own writer mutex.
final class RawLMDB: @unchecked Sendable {
    enum Mode: String {
        case full, metaAsync, deferred
    }

    private let env: OpaquePointer
    private let dbi: MDB_dbi
    let path: String

    /// The default map, 8 GiB, holds the 1M-profile store (1.4 GB) and still fits under valgrind,
    /// which refuses a 64 GiB mapping (callgrind runs of launch-read need raw LMDB too).
    init(path: String, mode: Mode, mapSize: Int = 1 << 33) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        var raw: OpaquePointer?
        try Self.check(mdb_env_create(&raw), "mdb_env_create")
        guard let env = raw else { throw BenchError("mdb_env_create returned no environment") }
        self.env = env
        var flags = UInt32(MDB_NOTLS)
        switch mode {
        case .full: break
        case .metaAsync: flags |= UInt32(MDB_NOMETASYNC)
        case .deferred: flags |= UInt32(MDB_NOSYNC)
        }
        try Self.check(mdb_env_set_mapsize(env, mapSize), "mdb_env_set_mapsize")
        try Self.check(mdb_env_set_maxdbs(env, 4), "mdb_env_set_maxdbs")
        try Self.check(mdb_env_open(env, path, flags, 0o600), "mdb_env_open")
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        var handle: MDB_dbi = 0
        try Self.check(mdb_dbi_open(txn, "documents", UInt32(MDB_CREATE), &handle), "mdb_dbi_open")
        try Self.check(mdb_txn_commit(txn), "mdb_txn_commit")
        dbi = handle
    }

    deinit { mdb_env_close(env) }

    /// Loads `count` records in big transactions of appended keys (keys must come in key order).
    func load(count: Int, key: (Int) -> [UInt8], value: (Int) -> [UInt8]) throws {
        let batch = 50_000
        var start = 0
        while start < count {
            var txn: OpaquePointer?
            try Self.check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
            for index in start..<min(start + batch, count) {
                try Self.put(txn, dbi, key(index), value(index), flags: UInt32(MDB_APPEND))
            }
            try Self.check(mdb_txn_commit(txn), "mdb_txn_commit")
            start += batch
        }
        try Self.check(mdb_env_sync(env, 1), "mdb_env_sync")
    }

    /// One `mdb_get` in a read transaction; returns the value's size so the read is not optimized away.
    @inline(__always)
    func get(_ key: [UInt8]) throws -> Int {
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
        defer { mdb_txn_abort(txn) }
        var data = MDB_val()
        let rc = key.withUnsafeBytes { raw in
            var k = MDB_val(mv_size: raw.count, mv_data: UnsafeMutableRawPointer(mutating: raw.baseAddress))
            return mdb_get(txn, dbi, &k, &data)
        }
        try Self.check(rc, "mdb_get")
        return data.mv_size
    }

    /// One write transaction putting `value` under `key`, committed (durable as the mode says).
    func put(_ key: [UInt8], _ value: [UInt8]) throws {
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        do {
            try Self.put(txn, dbi, key, value, flags: 0)
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
        try Self.check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    private static func put(
        _ txn: OpaquePointer?, _ dbi: MDB_dbi, _ key: [UInt8], _ value: [UInt8], flags: UInt32
    )
        throws
    {
        let rc = key.withUnsafeBytes { rawKey in
            value.withUnsafeBytes { rawValue in
                var k = MDB_val(
                    mv_size: rawKey.count, mv_data: UnsafeMutableRawPointer(mutating: rawKey.baseAddress))
                var v = MDB_val(
                    mv_size: rawValue.count, mv_data: UnsafeMutableRawPointer(mutating: rawValue.baseAddress))
                return mdb_put(txn, dbi, &k, &v, flags)
            }
        }
        try check(rc, "mdb_put")
    }

    static func check(_ rc: Int32, _ call: String) throws {
        guard rc != 0 else { return }
        throw BenchError("\(call): \(String(cString: mdb_strerror(rc)))")
    }
}

/// A failure of the benchmark's own setup, with what failed.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
