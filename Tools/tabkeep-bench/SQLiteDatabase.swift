import CSQLite
import Foundation

/// The SQLite contender: one table `documents(key BLOB PRIMARY KEY, value BLOB) WITHOUT ROWID`,
/// in WAL mode, with prepared statements, holding the same key and document bytes.
///
/// `@unchecked Sendable`: one connection is only ever used by one thread at a time (concurrent
/// edits open one connection per thread).
final class SQLiteDatabase: @unchecked Sendable {
    private let db: OpaquePointer
    private let select: OpaquePointer
    private let update: OpaquePointer
    let path: String

    /// Opens (creating) the database at `path`; `synchronous` is the PRAGMA's value (FULL, NORMAL, OFF).
    init(path: String, synchronous: String = "FULL") throws {
        self.path = path
        var raw: OpaquePointer?
        let rc = sqlite3_open_v2(
            path, &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db = raw else {
            sqlite3_close(raw)
            throw BenchError("sqlite3_open_v2 \(path): \(String(cString: sqlite3_errstr(rc)))")
        }
        self.db = db
        sqlite3_busy_timeout(db, 60_000)
        for sql in [
            "PRAGMA journal_mode=WAL", "PRAGMA synchronous=\(synchronous)",
            "CREATE TABLE IF NOT EXISTS documents(key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID",
        ] {
            try Self.exec(db, sql)
        }
        select = try Self.prepare(db, "SELECT value FROM documents WHERE key = ?1")
        update = try Self.prepare(db, "INSERT OR REPLACE INTO documents(key, value) VALUES (?1, ?2)")
    }

    deinit {
        sqlite3_finalize(select)
        sqlite3_finalize(update)
        sqlite3_close(db)
    }

    /// Loads `count` rows in one transaction.
    func load(count: Int, key: (Int) -> [UInt8], value: (Int) -> [UInt8]) throws {
        try Self.exec(db, "BEGIN")
        for index in 0..<count { try write(key(index), value(index)) }
        try Self.exec(db, "COMMIT")
        try Self.exec(db, "PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// The prepared SELECT by key; copies the value out, as a caller would, and returns its size.
    @inline(__always)
    func get(_ key: [UInt8]) throws -> Int {
        defer { sqlite3_reset(select) }
        let rc = key.withUnsafeBytes { raw in
            sqlite3_bind_blob(select, 1, raw.baseAddress, Int32(raw.count), nil)
            return sqlite3_step(select)
        }
        guard rc == SQLITE_ROW else { throw BenchError("SELECT: \(String(cString: sqlite3_errmsg(db)))") }
        let count = Int(sqlite3_column_bytes(select, 0))
        let bytes = [UInt8](UnsafeRawBufferPointer(start: sqlite3_column_blob(select, 0), count: count))
        return bytes.count
    }

    /// One autocommit statement: durable as `synchronous` says.
    func write(_ key: [UInt8], _ value: [UInt8]) throws {
        defer { sqlite3_reset(update) }
        let rc = key.withUnsafeBytes { rawKey in
            value.withUnsafeBytes { rawValue in
                sqlite3_bind_blob(update, 1, rawKey.baseAddress, Int32(rawKey.count), nil)
                sqlite3_bind_blob(update, 2, rawValue.baseAddress, Int32(rawValue.count), nil)
                return sqlite3_step(update)
            }
        }
        guard rc == SQLITE_DONE else { throw BenchError("INSERT: \(String(cString: sqlite3_errmsg(db)))") }
    }

    private static func exec(_ db: OpaquePointer, _ sql: String) throws {
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw BenchError("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
    }

    private static func prepare(_ db: OpaquePointer, _ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw BenchError("prepare \(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        return statement
    }
}
