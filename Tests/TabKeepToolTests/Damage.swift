import LMDBKit
import TabKeep

/// Breaks a store on purpose, through the raw databases, so `verify` has something to find.
enum Damage {
    /// Puts a dot record (profile ‖ 0 ‖ o ‖ replica ‖ sequence → bar), which schema 6 keeps none
    /// of, under `profile`: what a schema-5 build writing into a migrated store would leave.
    static func putStrayDotRecord(in path: String, profile: ProfileID) throws {
        let store = try TabKeepStore(path: path)
        try store.environment.write { txn in
            let key =
                store.dotRecordPrefix(profile) + [UInt8](repeating: 0, count: 7) + [1]
                + [UInt8](repeating: 0, count: 7) + [1]
            try txn.put(store.dotsDatabase, key: key, value: Array("main".utf8))
        }
    }
}
