import LMDBKit
import TabKeep

/// Breaks a store on purpose, through the raw databases, so `verify` has something to find.
enum Damage {
    /// Deletes the first dot record.
    static func deleteFirstDot(in path: String) throws {
        let store = try TabKeepStore(path: path)
        try store.environment.write { txn in
            var first: [UInt8]?
            try store.forEachDotRecord(txn) { key, _ in
                first = Array(key)
                return false
            }
            _ = try txn.delete(store.dotsDatabase, key: first!)
        }
    }
}
