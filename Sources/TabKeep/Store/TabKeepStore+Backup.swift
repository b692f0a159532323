import LMDBKit

/// Hot backups: a copy of the live store, marked so that its first writing open takes a fresh
/// replica id (see `takeFreshIdentityIfCopy()`).
extension TabKeepStore {
    /// A hot copy of the store into `destination` (an empty or new directory), marked as a copy:
    /// whatever store opens it for writing first takes a fresh replica id. Wraps LMDB's
    /// `mdb_env_copyfd2`; apps keep reading and writing meanwhile.
    public func backup(to destination: String, compact: Bool = false) throws(TabKeepError) {
        do {
            try environment.backup(to: destination, compact: compact)
            let copy = try Environment.open(
                path: destination,
                configuration: Configuration(
                    databases: Records.all, maxDatabases: Records.maxDatabases, durability: .full))
            let meta = try copy.database(Records.meta)
            let original = replicaID
            try copy.write { txn in
                try txn.put(meta, key: Records.MetaKey.copyOf, value: Records.bigEndian(original.rawValue))
            }
        } catch {
            throw TabKeepError.wrap(error)
        }
    }
}
