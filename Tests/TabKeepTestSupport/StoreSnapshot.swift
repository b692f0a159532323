import LMDBKit
package import TabKeep

/// Every record of every database, for comparing a store before and after something that must not
/// change it.
package func snapshot(_ store: TabKeepStore) throws -> [String: [[UInt8]]] {
    var result: [String: [[UInt8]]] = [:]
    for name in store.environment.databaseNames {
        let database = try store.environment.database(name)
        result[name] = try store.environment.read { txn in
            try txn.records(database).flatMap { [$0.key, $0.value] }
        }
    }
    return result
}
