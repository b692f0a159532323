// LMDB's C API: Debian's liblmdb on Linux, LMDB compiled from source on Apple platforms.
#if canImport(LMDB)
    internal import LMDB
#else
    internal import CLMDB
#endif

/// A transaction, lent to the closure of ``Environment/read(_:)`` or ``Environment/write(_:)``.
///
/// It is noncopyable and only borrowed, so it cannot escape its closure, and the closure is
/// synchronous, so it cannot span an `await`. Pointers it hands out are valid only inside the call
/// that hands them out.
public struct Transaction: ~Copyable {
    let handle: OpaquePointer
    let environment: Environment
    /// Whether this is a write transaction.
    public let isWritable: Bool

    /// The transaction's id (`mdb_txn_id`).
    public var id: Int { Int(mdb_txn_id(handle)) }

    /// The committed state a read transaction sees, as (the environment's `openings`,
    /// ``id``): two read transactions with equal snapshots see the same data, even across a
    /// suspend, while the store's file may have been replaced. Nil for a write transaction, whose
    /// id names a state not yet committed.
    public var snapshot: Snapshot? {
        isWritable ? nil : Snapshot(opening: environment.openings, id: id)
    }

    /// See ``Transaction/snapshot``.
    public struct Snapshot: Hashable, Sendable {
        /// The environment's opening the transaction ran in.
        public let opening: Int
        /// The id of the last write transaction committed before it began.
        public let id: Int
    }

    // MARK: Reading

    /// The value stored under `key`, or nil. Wraps `mdb_get`.
    public func get(_ database: Database, key: [UInt8]) throws(LMDBError) -> [UInt8]? {
        try lookup(database, key: key).map { Array($0) }
    }

    /// Calls `body` with the stored bytes of `key` (nil if absent), without copying them.
    /// The pointer is valid only during the call.
    public func withValue<R>(
        _ database: Database, key: [UInt8], _ body: (UnsafeRawBufferPointer?) throws -> R
    )
        throws -> R
    {
        try body(try lookup(database, key: key))
    }

    /// Runs `body` with the bytes stored under `key`, given as raw bytes (a key built on the stack,
    /// say), or nil when absent. The pointer is valid only inside `body`.
    public func withValue<R>(
        _ database: Database, rawKey key: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer?) throws -> R
    )
        throws -> R
    {
        try validate(rawKey: key)
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var data = MDB_val()
        let rc = mdb_get(handle, database.dbi, &k, &data)
        if rc == MDB_NOTFOUND { return try body(nil) }
        try check(rc)
        return try body(UnsafeRawBufferPointer(start: data.mv_data, count: data.mv_size))
    }

    /// Whether `key` is present.
    public func contains(_ database: Database, key: [UInt8]) throws(LMDBError) -> Bool {
        try lookup(database, key: key) != nil
    }

    private func lookup(_ database: Database, key: [UInt8]) throws(LMDBError) -> UnsafeRawBufferPointer? {
        try validate(key)
        var data = MDB_val()
        let rc = key.withUnsafeBytes { raw in
            var k = MDB_val(mv_size: raw.count, mv_data: UnsafeMutableRawPointer(mutating: raw.baseAddress))
            return mdb_get(handle, database.dbi, &k, &data)
        }
        if rc == MDB_NOTFOUND { return nil }
        try check(rc)
        return UnsafeRawBufferPointer(start: data.mv_data, count: data.mv_size)
    }

    // MARK: Writing

    /// Stores `value` under `key`. Wraps `mdb_put`.
    public func put(_ database: Database, key: [UInt8], value: [UInt8], options: PutOptions = [])
        throws(LMDBError)
    {
        try reserve(database, key: key, count: value.count, options: options) { buffer in
            value.withUnsafeBytes { buffer.copyMemory(from: $0) }
        }
    }

    /// Stores a value of `count` bytes under `key`, written in place by `fill` (`MDB_RESERVE`),
    /// which saves a copy for values encoded on the fly.
    public func reserve(
        _ database: Database, key: [UInt8], count: Int, options: PutOptions = [],
        _ fill: (UnsafeMutableRawBufferPointer) -> Void
    ) throws(LMDBError) {
        try Self.withBytes(of: key) { (raw) throws(LMDBError) in
            try reserve(database, rawKey: raw, count: count, options: options, fill)
        }
    }

    /// Stores `value` under `key` given as raw bytes (a key built on the stack, say). Wraps
    /// `mdb_put`.
    public func put(
        _ database: Database, rawKey key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
        options: PutOptions = []
    ) throws(LMDBError) {
        try reserve(database, rawKey: key, count: value.count, options: options) { buffer in
            buffer.copyMemory(from: value)
        }
    }

    /// ``reserve(_:key:count:options:_:)`` with the key given as raw bytes.
    public func reserve(
        _ database: Database, rawKey key: UnsafeRawBufferPointer, count: Int, options: PutOptions = [],
        _ fill: (UnsafeMutableRawBufferPointer) -> Void
    ) throws(LMDBError) {
        guard isWritable else { throw LMDBError.readOnlyTransaction }
        try validate(rawKey: key)
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var data = MDB_val(mv_size: count, mv_data: nil)
        try check(mdb_put(handle, database.dbi, &k, &data, options.rawValue | UInt32(MDB_RESERVE)))
        fill(UnsafeMutableRawBufferPointer(start: data.mv_data, count: count))
    }

    /// Removes `key`, given as raw bytes; returns whether it was present. Wraps `mdb_del`.
    @discardableResult
    public func delete(_ database: Database, rawKey key: UnsafeRawBufferPointer) throws(LMDBError) -> Bool {
        guard isWritable else { throw LMDBError.readOnlyTransaction }
        try validate(rawKey: key)
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        let rc = mdb_del(handle, database.dbi, &k, nil)
        if rc == MDB_NOTFOUND { return false }
        try check(rc)
        return true
    }

    /// Removes `key`; returns whether it was present. Wraps `mdb_del`.
    @discardableResult
    public func delete(_ database: Database, key: [UInt8]) throws(LMDBError) -> Bool {
        try Self.withBytes(of: key) { (raw) throws(LMDBError) in try delete(database, rawKey: raw) }
    }

    /// Removes every key of `database`, keeping the database. Wraps `mdb_drop(…, 0)`.
    public func removeAll(_ database: Database) throws(LMDBError) {
        guard isWritable else { throw LMDBError.readOnlyTransaction }
        try check(mdb_drop(handle, database.dbi, 0))
    }

    // MARK: Figures

    /// The figures of `database` as this transaction sees it. Wraps `mdb_stat`.
    public func statistics(of database: Database) throws(LMDBError) -> DatabaseStatistics {
        var stat = MDB_stat()
        try check(mdb_stat(handle, database.dbi, &stat))
        return DatabaseStatistics(stat)
    }

    /// The number of keys in `database`.
    public func count(_ database: Database) throws(LMDBError) -> Int {
        try statistics(of: database).entries
    }

    // MARK: Iteration

    /// Lends a cursor over `database` to `body`; it closes when `body` returns.
    public func withCursor<R>(_ database: Database, _ body: (borrowing Cursor) throws -> R) throws -> R {
        var raw: OpaquePointer?
        try check(mdb_cursor_open(handle, database.dbi, &raw))
        guard let raw else { throw LMDBError.badTransaction }
        let cursor = Cursor(handle: raw, maxKeySize: environment.maxKeySize)
        return try body(cursor)
    }

    /// Calls `body` with every key and value of `database` in `range`, in key order (or reverse
    /// key order). `body` returns false to stop early. The pointers are valid only during each call.
    public func forEach(
        _ database: Database, in range: KeyRange = .all, reverse: Bool = false,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try withCursor(database) { cursor in
            var item: Cursor.Item?
            if reverse {
                if let upper = range.upper {
                    item =
                        try cursor.seek(atLeast: upper).flatMap { _ in try cursor.previous() }
                        ?? cursor.last()
                } else {
                    item = try cursor.last()
                }
            } else {
                item = try range.lower.map { try cursor.seek(atLeast: $0) } ?? cursor.first()
            }
            while let current = item, range.contains(current.key) {
                guard try body(current.key, current.value) else { return }
                item = try reverse ? cursor.previous() : cursor.next()
            }
        }
    }

    /// Every key and value of `database` in `range`, copied, in key order.
    public func records(_ database: Database, in range: KeyRange = .all) throws -> [(
        key: [UInt8], value: [UInt8]
    )] {
        var result: [(key: [UInt8], value: [UInt8])] = []
        try forEach(database, in: range) { key, value in
            result.append((Array(key), Array(value)))
            return true
        }
        return result
    }

    /// Calls `body` with the bytes of `key`, keeping its typed error (`Array.withUnsafeBytes`
    /// would widen it to `any Error`): how each array-key method hands over to its raw-key twin.
    static func withBytes<R>(
        of key: [UInt8], _ body: (UnsafeRawBufferPointer) throws(LMDBError) -> R
    ) throws(LMDBError) -> R {
        try key.withUnsafeBytes { raw in Result { () throws(LMDBError) in try body(raw) } }.get()
    }

    func validate(_ key: [UInt8]) throws(LMDBError) {
        try Self.withBytes(of: key) { (raw) throws(LMDBError) in try validate(rawKey: raw) }
    }

    func validate(rawKey key: UnsafeRawBufferPointer) throws(LMDBError) {
        if key.isEmpty { throw LMDBError.emptyKey }
        if key.count > environment.maxKeySize {
            throw LMDBError.keyTooLong(size: key.count, limit: environment.maxKeySize)
        }
    }
}

/// Flags for ``Transaction/put(_:key:value:options:)``.
public struct PutOptions: OptionSet, Hashable, Sendable {
    /// The flag bits, as `mdb_put` takes them.
    public let rawValue: UInt32
    /// Creates options from `mdb_put` flag bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// `MDB_NOOVERWRITE`: fail with ``LMDBError/keyExists`` if the key is present.
    public static let noOverwrite = PutOptions(rawValue: UInt32(MDB_NOOVERWRITE))
    /// `MDB_APPEND`: the key sorts after every present key (fast bulk loading).
    public static let append = PutOptions(rawValue: UInt32(MDB_APPEND))
}
