import LMDBKit
import TabKeep

/// Breaks a store on purpose, through the raw databases, so `verify` has something to find.
enum Damage {
    /// Deletes the first row of `dots`.
    static func deleteFirstDot(in path: String) throws {
        let store = try TabKeepStore(path: path)
        let dots = try store.environment.database("dots")
        try store.environment.write { txn in
            let first = try txn.records(dots).first!
            _ = try txn.delete(dots, key: first.key)
        }
    }
}
