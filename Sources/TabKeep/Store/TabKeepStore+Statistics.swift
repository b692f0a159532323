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
        /// The database's name (`meta`, `documents`, `dots`, `versions`, `catalogs`, `changes`).
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
        do throws(LMDBError) {
            let info = try environment.info()
            var databases: [StoreStatistics.DatabaseFigures] = []
            for name in Records.all {
                // A store of the first release, opened read-only, has no change log yet.
                guard let database = try? environment.database(name) else { continue }
                databases.append(.init(name: name, statistics: try environment.statistics(of: database)))
            }
            return StoreStatistics(
                pageSize: info.pageSize, mapSize: info.mapSize, usedBytes: info.usedBytes,
                databases: databases)
        } catch {
            throw .storage(error)
        }
    }
}
