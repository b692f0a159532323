// LMDB's C API: Debian's liblmdb on Linux, LMDB compiled from source on Apple platforms.
#if canImport(LMDB)
    internal import LMDB
#else
    internal import CLMDB
#endif

/// A handle on a named database of an ``Environment``, valid as long as the environment is open.
///
/// Get one with ``Environment/database(_:)``; handles are opened once, when the environment
/// opens, and shared by every transaction.
public struct Database: Hashable, Sendable, CustomStringConvertible {
    /// The database's name.
    public let name: String
    let dbi: MDB_dbi

    /// The database's name.
    public var description: String { name }

    /// LMDB's main database, the one that holds the named databases' records, in every
    /// environment: `mdb_dbi_open` with no name opens it, always as handle 1.
    ///
    /// A caller may keep records of its own there under keys no database name can take (one that
    /// holds a zero byte, which `mdb_dump -a` and ``Environment/database(_:)`` also pass over).
    /// Its tree is one page while it stays small, and every commit that changes a named database
    /// writes that page anyway: a record kept there costs a commit no page of its own.
    public static let main = Database(name: "", dbi: 1)
}

/// The figures `mdb_stat` reports for one database.
public struct DatabaseStatistics: Hashable, Sendable {
    /// The size of a page, in bytes.
    public var pageSize: Int
    /// The depth of the B-tree.
    public var depth: Int
    /// The number of internal (branch) pages.
    public var branchPages: Int
    /// The number of leaf pages.
    public var leafPages: Int
    /// The number of overflow pages.
    public var overflowPages: Int
    /// The number of key/value pairs.
    public var entries: Int

    init(_ stat: MDB_stat) {
        pageSize = Int(stat.ms_psize)
        depth = Int(stat.ms_depth)
        branchPages = stat.ms_branch_pages
        leafPages = stat.ms_leaf_pages
        overflowPages = stat.ms_overflow_pages
        entries = stat.ms_entries
    }
}

/// The figures `mdb_env_info` reports for an environment.
public struct EnvironmentInfo: Hashable, Sendable {
    /// The current size of the map, in bytes.
    public var mapSize: Int
    /// The number of the last page used.
    public var lastPage: Int
    /// The id of the last committed transaction, across every process.
    public var lastTransactionID: Int
    /// The reader slots the lock file holds.
    public var maxReaders: Int
    /// The reader slots in use.
    public var readers: Int
    /// The page size, in bytes.
    public var pageSize: Int

    /// The bytes of the map in use: (last page + 1) × page size.
    public var usedBytes: Int { (lastPage + 1) * pageSize }
}

/// The named databases an environment opened, looked up by name: a handful of short names, so a
/// linear scan of an array, not a hash of each name (opening a store looks names up several times).
struct DatabaseTable: Equatable, Sendable {
    private(set) var all: [Database] = []

    /// The handle named `name`, or nil.
    subscript(name: String) -> Database? {
        for database in all where database.name == name { return database }
        return nil
    }

    /// How many databases the table holds.
    var count: Int { all.count }

    /// The names, sorted.
    var names: [String] { all.map(\.name).sorted() }

    /// Makes room for `count` databases (an open's table, grown one append at a time, was
    /// reallocated twice on the way to four).
    mutating func reserveCapacity(_ count: Int) { all.reserveCapacity(count) }

    /// Adds `database` unless one of that name is in the table already.
    mutating func insert(_ database: Database) {
        if self[database.name] == nil { all.append(database) }
    }

    /// The same handles under the same names, in whatever order they were opened.
    static func == (lhs: DatabaseTable, rhs: DatabaseTable) -> Bool {
        lhs.count == rhs.count && lhs.all.allSatisfy { rhs[$0.name] == $0 }
    }
}
