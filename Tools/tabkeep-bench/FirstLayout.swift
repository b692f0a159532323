import CSQLite
import Foundation
import LMDBKit
import TabKeep

extension Bench {
    /// The store size of first-layout: the UserDefaults cap, so every contender runs.
    var firstLayoutProfiles: Int { options.smoke ? options.profiles[0] : 10_000 }

    /// first-layout: from nothing open to the first layout in hand, warm page cache — TabKeep's
    /// `TabKeepStore(path:)` + `layout(profile)` against `sqlite3_open_v2` + prepare + step,
    /// `UserDefaults(suiteName:)` + a read, a JSON file read + decode, and raw LMDB's read-only open + get
    /// (with its lock file and with `MDB_NOLOCK`);
    /// TabKeep's in a store of each locking mode.
    /// Every operation also closes what it opened (so the next one starts from nothing again).
    func firstLayout() throws {
        let count = firstLayoutProfiles
        let scale = scaleLabel(count)
        var storePaths: [(path: String, locking: Locking)] = []
        for locking in options.lockings {
            let name = "first-tabkeep-\(scale)-\(locking)"
            // Populated, then closed: the store under test must not stay open in this process.
            _ = try tabKeepStore(name, count: count, locking: locking)
            storePaths.append((path(name), locking))
        }
        let rawPath = path("first-raw-\(scale)")
        try RawLMDB(path: rawPath, mode: .full).load(count: count, key: fixture.key, value: fixture.bytes)
        let sqlitePath = path("first-sqlite-\(scale).db")
        try SQLiteDatabase(path: sqlitePath).load(count: count, key: fixture.key, value: fixture.bytes)
        let suite = "tabkeep-bench-first-\(scale)"
        try UserDefaultsStore(suite: suite).load(count: count, value: fixture.bytes)
        let files = try JSONFiles(directory: path("first-json-\(scale)"))
        try files.load(count: count) { StoredLayout(fixture.document($0).layout(catalog: fixture.catalog)) }
        log("first-layout \(scale): contenders loaded, measuring")

        let picks = sample(among: count, size: 1_000, seed: 0xF125)
        let profiles = picks.map(fixture.profile)
        let keys = picks.map(fixture.key)
        let defaultsKeys = picks.map(UserDefaultsStore.key)
        let paths = picks.map(files.path)
        var contenders = storePaths.map { storePath, locking in
            Contender(name: tabKeepName("TabKeep", locking), locking: locking) { [unowned self] i in
                let store = try TabKeepStore(path: storePath)
                sink &+= try store.layout(profiles[i % profiles.count]).order.count
            }
        }
        contenders += [
            Contender(name: "SQLite WAL") { [unowned self] i in
                sink &+= try SQLiteDatabase.firstRead(path: sqlitePath, key: keys[i % keys.count])
            },
            Contender(name: "UserDefaults") { [unowned self] i in
                guard let defaults = UserDefaults(suiteName: suite),
                    let data = defaults.data(forKey: defaultsKeys[i % defaultsKeys.count])
                else { throw BenchError("UserDefaults: no first read") }
                sink &+= data.count
            },
            Contender(name: "JSON file") { [unowned self] i in
                let data = try Data(contentsOf: URL(fileURLWithPath: paths[i % paths.count]))
                sink &+= try JSONDecoder().decode(StoredLayout.self, from: data).order.count
            },
            Contender(name: "raw LMDB") { [unowned self] i in
                sink &+= try RawLMDB.firstRead(path: rawPath, key: keys[i % keys.count])
            },
            Contender(name: "raw LMDB NOLOCK") { [unowned self] i in
                sink &+= try RawLMDB.firstRead(path: rawPath, key: keys[i % keys.count], locking: .noLock)
            },
        ]
        let samples = try interleave(contenders, seconds: options.seconds)
        var notes = [
            "SQLite WAL": "sqlite3_open_v2 + prepare + step + finalize + close",
            "UserDefaults":
                "UserDefaults(suiteName:) + data(forKey:); Foundation keeps the suite cached in process",
            "JSON file": "Data(contentsOf:) + JSONDecoder of the resolved layout",
            "raw LMDB":
                "read-only mdb_env_open + read txn (dbi_open, get) + mdb_env_close: the least a first read takes",
            "raw LMDB NOLOCK": "the same with MDB_NOLOCK, as a per-transaction store opens",
        ]
        for (_, locking) in storePaths {
            notes[tabKeepName("TabKeep", locking)] =
                "TabKeepStore(path:) + layout(profile) with the registered catalog, then close"
        }
        var rows = rows(.firstLayout, scale: scale, contenders, samples, notes: notes)
        Report.ratios(&rows, baseline: "raw LMDB")
        report.rows += rows
    }
}

extension SQLiteDatabase {
    /// Opens the database at `path`, reads the value of `key` with a freshly prepared SELECT, and
    /// closes it again: an app's first read at launch. Returns the value's size.
    static func firstRead(path: String, key: [UInt8]) throws -> Int {
        var raw: OpaquePointer?
        let rc = sqlite3_open_v2(path, &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        defer { sqlite3_close(raw) }
        guard rc == SQLITE_OK, let db = raw else { throw BenchError("sqlite3_open_v2 \(path): \(rc)") }
        var statement: OpaquePointer?
        guard
            sqlite3_prepare_v2(db, "SELECT value FROM documents WHERE key = ?1", -1, &statement, nil)
                == SQLITE_OK
        else { throw BenchError("prepare: \(String(cString: sqlite3_errmsg(db)))") }
        defer { sqlite3_finalize(statement) }
        let step = key.withUnsafeBytes { bytes in
            sqlite3_bind_blob(statement, 1, bytes.baseAddress, Int32(bytes.count), nil)
            return sqlite3_step(statement)
        }
        guard step == SQLITE_ROW else { throw BenchError("SELECT: \(String(cString: sqlite3_errmsg(db)))") }
        let size = Int(sqlite3_column_bytes(statement, 0))
        return [UInt8](UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, 0), count: size)).count
    }
}
