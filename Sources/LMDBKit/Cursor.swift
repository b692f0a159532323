// LMDB's C API: Debian's liblmdb on Linux, LMDB compiled from source on Apple platforms.
#if canImport(LMDB)
    internal import LMDB
#else
    internal import CLMDB
#endif
#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#endif

/// A cursor over one database, lent by ``Transaction/withCursor(_:_:)``; it cannot outlive the
/// transaction, and it closes when the closure that borrowed it returns.
///
/// Each move returns the record it lands on, or nil past either end. The pointers of an ``Item``
/// are valid until the next move or the end of the transaction.
public struct Cursor: ~Copyable {
    let handle: OpaquePointer
    let maxKeySize: Int

    /// A record the cursor points at.
    public struct Item {
        /// The key's bytes.
        public let key: UnsafeRawBufferPointer
        /// The value's bytes.
        public let value: UnsafeRawBufferPointer
    }

    deinit { mdb_cursor_close(handle) }

    /// Moves to the first record.
    public func first() throws(LMDBError) -> Item? { try move(MDB_FIRST) }
    /// Moves to the last record.
    public func last() throws(LMDBError) -> Item? { try move(MDB_LAST) }
    /// Moves to the next record.
    public func next() throws(LMDBError) -> Item? { try move(MDB_NEXT) }
    /// Moves to the previous record.
    public func previous() throws(LMDBError) -> Item? { try move(MDB_PREV) }

    /// Moves to the first record whose key is ≥ `key` (`MDB_SET_RANGE`).
    public func seek(atLeast key: [UInt8]) throws(LMDBError) -> Item? {
        try move(MDB_SET_RANGE, key: key)
    }

    /// Moves to the record whose key is exactly `key` (`MDB_SET_KEY`).
    public func seek(exactly key: [UInt8]) throws(LMDBError) -> Item? {
        try move(MDB_SET_KEY, key: key)
    }

    private func move(_ op: MDB_cursor_op, key: [UInt8]? = nil) throws(LMDBError) -> Item? {
        var k = MDB_val()
        var v = MDB_val()
        let rc: Int32
        if let key {
            if key.isEmpty { throw LMDBError.emptyKey }
            if key.count > maxKeySize { throw LMDBError.keyTooLong(size: key.count, limit: maxKeySize) }
            rc = key.withUnsafeBytes { raw in
                k = MDB_val(mv_size: raw.count, mv_data: UnsafeMutableRawPointer(mutating: raw.baseAddress))
                return mdb_cursor_get(handle, &k, &v, op)
            }
        } else {
            rc = mdb_cursor_get(handle, &k, &v, op)
        }
        if rc == MDB_NOTFOUND { return nil }
        try check(rc)
        return Item(
            key: UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
            value: UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
    }
}

/// A range of keys: from `lower` (inclusive) to `upper` (exclusive); nil is unbounded.
public struct KeyRange: Hashable, Sendable {
    /// The smallest key in the range, or nil for no lower bound.
    public var lower: [UInt8]?
    /// The first key past the range, or nil for no upper bound.
    public var upper: [UInt8]?

    /// A range from `lower` (inclusive) to `upper` (exclusive).
    public init(from lower: [UInt8]? = nil, to upper: [UInt8]? = nil) {
        self.lower = lower
        self.upper = upper
    }

    /// Every key.
    public static let all = KeyRange()

    /// Every key that starts with `prefix`.
    public static func prefix(_ prefix: [UInt8]) -> KeyRange {
        var upper = prefix
        while let last = upper.last, last == 0xFF { upper.removeLast() }
        if !upper.isEmpty { upper[upper.count - 1] += 1 }
        return KeyRange(from: prefix.isEmpty ? nil : prefix, to: upper.isEmpty ? nil : upper)
    }

    /// Whether `key` lies in the range.
    public func contains(_ key: UnsafeRawBufferPointer) -> Bool {
        if let lower, Self.compare(key, lower) < 0 { return false }
        if let upper, Self.compare(key, upper) >= 0 { return false }
        return true
    }

    /// Three-way byte-wise order of a key and a bound, LMDB's default key order (a shorter key
    /// first when one is a prefix of the other): below zero when `key` sorts first. One `memcmp`,
    /// not the generic sequence comparison (about five instructions a byte), since every record a
    /// range scan reads is checked against its bound. `containsBySequenceOrder(_:)` is its twin.
    @inline(__always)
    static func compare(_ key: UnsafeRawBufferPointer, _ bound: [UInt8]) -> Int {
        bound.withUnsafeBytes { bound in
            let common = min(key.count, bound.count)
            if common > 0 {
                let order = memcmp(key.baseAddress!, bound.baseAddress!, common)
                if order != 0 { return Int(order) }
            }
            return key.count == bound.count ? 0 : (key.count < bound.count ? -1 : 1)
        }
    }

    /// ``contains(_:)`` by the standard library's lexicographic order: the slow twin the tests
    /// compare it with.
    package func containsBySequenceOrder(_ key: UnsafeRawBufferPointer) -> Bool {
        if let lower, key.lexicographicallyPrecedes(lower) { return false }
        if let upper, !key.lexicographicallyPrecedes(upper) { return false }
        return true
    }
}
