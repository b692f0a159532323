import LMDBKit

extension TabKeepStore {
    // MARK: Identity

    /// The schema this store's records are in: ``schemaVersion``, or 1 for a store of the first
    /// release opened read-only (opening it for writing migrates it).
    public func storedSchema() throws(TabKeepError) -> Int {
        return try read { txn in
            Int(try txn.get(meta, key: Records.MetaKey.schema).flatMap(Records.uint64) ?? 0)
        }
    }

    /// The replica ids this store had before its current one, oldest first: a `replace` restore and
    /// the first writing open of a backup copy each retire the id the store had.
    public func identityHistory() throws(TabKeepError) -> [ReplicaID] {
        return try read { txn in try readIdentities(txn) }
    }

    func readIdentities(_ txn: borrowing Transaction) throws -> [ReplicaID] {
        guard let bytes = try txn.get(meta, key: Records.MetaKey.identities) else { return [] }
        guard bytes.count % 8 == 0 else { throw TabKeepError.corruptMeta("identities is not a list of ids") }
        return stride(from: 0, to: bytes.count, by: 8).map {
            ReplicaID(rawValue: Records.uint64(bytes[$0..<($0 + 8)])!)
        }
    }

    /// Gives the store a fresh replica id inside `txn`, keeping the old one in the history. Its
    /// entries keep their dots: the old id becomes one more replica in the store's vectors.
    func takeFreshIdentity(_ txn: borrowing Transaction) throws -> ReplicaID {
        let old =
            try txn.get(meta, key: Records.MetaKey.replica).flatMap(Records.uint64).map(
                ReplicaID.init(rawValue:))
            ?? replicaID
        var fresh = ReplicaID.random()
        let history = try readIdentities(txn)
        while fresh == old || history.contains(fresh) { fresh = .random() }
        try txn.put(
            meta, key: Records.MetaKey.identities,
            value: (history + [old]).flatMap { Records.bigEndian($0.rawValue) })
        try txn.put(meta, key: Records.MetaKey.replica, value: Records.bigEndian(fresh.rawValue))
        return fresh
    }

    /// A backup copy opened for writing for the first time takes a fresh id, so a device restored
    /// from a backup never reuses dots its peers already hold.
    func takeFreshIdentityIfCopy() throws(TabKeepError) {
        guard try read({ txn in try txn.get(meta, key: Records.MetaKey.copyOf) }) != nil
        else {
            return
        }
        let fresh: ReplicaID? = try write { txn in
            guard try txn.get(meta, key: Records.MetaKey.copyOf) != nil else { return nil }
            let fresh = try takeFreshIdentity(txn)
            try txn.delete(meta, key: Records.MetaKey.copyOf)
            return fresh
        }
        if let fresh { identity.withLock { $0 = fresh } }
    }
}
