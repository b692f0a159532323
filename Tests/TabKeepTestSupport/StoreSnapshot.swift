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

/// The prefix of the change log's tail keys in LMDB's main database (schema 5): 0x00 ‖ "changes",
/// then the revision (8 bytes BE). Spelled here from Docs/Formats.md, not taken from the code.
package let changeTailPrefix: [UInt8] = [0] + Array("changes".utf8)

/// The revisions of the change log's records in `changes` and in the tail, each in key order.
package func changeLogRevisions(_ store: TabKeepStore) throws -> (settled: [UInt64], tail: [UInt64]) {
    func number(_ bytes: some Collection<UInt8>) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }
    let changes = try store.environment.database("changes")
    let tail = KeyRange.prefix(changeTailPrefix)
    return try store.environment.read { txn in
        (
            try txn.records(changes).map { number($0.key) },
            try txn.records(.main).filter { record in record.key.withUnsafeBytes { tail.contains($0) } }
                .map { number($0.key.suffix(8)) }
        )
    }
}
