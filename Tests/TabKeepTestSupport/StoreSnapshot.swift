import LMDBKit
package import TabKeep

/// Every record of every database, for comparing a store before and after something that must not
/// change it; under "" the records LMDB's main database holds beside the databases' own (schema
/// 5's change-log tail, keys holding a zero byte).
package func snapshot(_ store: TabKeepStore) throws -> [String: [[UInt8]]] {
    var result: [String: [[UInt8]]] = [:]
    for name in store.environment.databaseNames {
        let database = try store.environment.database(name)
        result[name] = try store.environment.read { txn in
            try txn.records(database).flatMap { [$0.key, $0.value] }
        }
    }
    result[""] = try store.environment.read { txn in
        try txn.records(.main).filter { $0.key.contains(0) }.flatMap { [$0.key, $0.value] }
    }
    return result
}
