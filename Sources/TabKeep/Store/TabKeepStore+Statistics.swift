public import LMDBKit

/// The LMDB figures of a store, for tools such as `tabkeep stat`.
///
/// ```swift
/// let figures = try store.statistics()
/// print(figures.usedBytes, figures.entries)
/// for database in figures.databases { print(database.name, database.statistics.depth) }
/// ```
public struct StoreStatistics: Hashable, Sendable {
    /// The figures of one of the store's LMDB databases.
    public struct DatabaseFigures: Hashable, Sendable {
        /// The database's name (`meta`, `profiles`, `catalogs`, `changes`; a schema-1 or schema-2
        /// store opened read-only has `documents`, `dots` and `versions` instead of `profiles`).
        public var name: String
        /// Its B-tree figures, as `mdb_stat` gives them.
        public var statistics: DatabaseStatistics
    }

    /// The size of an LMDB page, in bytes.
    public var pageSize: Int
    /// The size of the memory map, in bytes.
    public var mapSize: Int
    /// The bytes of the map in use (up to the last page used).
    public var usedBytes: Int
    /// Each database the store has, in the store's order; a store of the first schema, opened
    /// read-only, has no `changes`.
    public var databases: [DatabaseFigures]
    /// The stored documents, erased ones included (schema 3 keeps them in `profiles` with the
    /// dots and versions, so no database's entries count them).
    public var documents: Int = 0

    /// The entries of every database together.
    public var entries: Int { databases.reduce(0) { $0 + $1.statistics.entries } }
    /// The depth of the deepest B-tree.
    public var depth: Int { databases.map(\.statistics.depth).max() ?? 0 }

    /// The figures of the database called `name`, or nil if the store has none of that name.
    public subscript(name: String) -> DatabaseStatistics? {
        databases.first { $0.name == name }?.statistics
    }
}

extension TabKeepStore {
    /// The store's LMDB figures: page size, map size, used bytes, and per database its B-tree
    /// depth, pages and entries. Wraps `mdb_env_info` and `mdb_stat`.
    public func statistics() throws(TabKeepError) -> StoreStatistics {
        var figures = try { () throws(TabKeepError) -> StoreStatistics in
            do throws(LMDBError) {
                let info = try environment.info()
                var databases: [StoreStatistics.DatabaseFigures] = []
                // A read-only open of a schema-1 or schema-2 store lists the old layout's databases.
                for name in spaces.tagged ? Records.all : Records.legacy {
                    // A store of the first release, opened read-only, has no change log yet.
                    guard let database = try? environment.database(name) else { continue }
                    databases.append(.init(name: name, statistics: try environment.statistics(of: database)))
                }
                let figures = StoreStatistics(
                    pageSize: info.pageSize, mapSize: info.mapSize, usedBytes: info.usedBytes,
                    databases: databases)
                return figures
            } catch {
                throw .storage(error)
            }
        }()
        figures.documents = try read { txn in
            var count = 0
            try spaces.forEach(txn, Records.Tag.document) { _, _ in
                count += 1
                return true
            }
            return count
        }
        return figures
    }
}
