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

    /// A hot copy of the store into `destination` (an empty or new directory), marked as a copy:
    /// whatever store opens it for writing first takes a fresh replica id. Wraps LMDB's
    /// `mdb_env_copyfd2`; apps keep reading and writing meanwhile.
    public func backup(to destination: String, compact: Bool = false) throws(TabKeepError) {
        do {
            try environment.backup(to: destination, compact: compact)
            let copy = try Environment.open(
                path: destination,
                configuration: Configuration(databases: Records.all, durability: .full))
            let meta = try copy.database(Records.meta)
            let original = replicaID
            try copy.write { txn in
                try txn.put(meta, key: Records.MetaKey.copyOf, value: Records.bigEndian(original.rawValue))
            }
        } catch {
            throw TabKeepError.wrap(error)
        }
    }

    // MARK: Schema 1 → 2

    /// Migrates a schema-1 store in place, in one write transaction (a crash leaves schema 1):
    /// `dots` keys gain their profile, and each profile gets its own vector — for every replica the
    /// highest of its dots in that profile, and for this replica its schema-1 sequence, so its next
    /// edits in any profile never reuse a dot it already issued.
    func migrateIfNeeded() throws(TabKeepError) {
        let schema = try read { txn in
            try txn.get(meta, key: Records.MetaKey.schema).flatMap(Records.uint64)
        }
        guard schema == 1 else { return }
        let own = replicaID
        try write { txn in
            guard try txn.get(meta, key: Records.MetaKey.schema).flatMap(Records.uint64) == 1 else {
                return
            }
            let sequence = try txn.get(meta, key: Records.MetaKey.sequence).flatMap(Records.uint64) ?? 0
            var highest: [ProfileID: [ReplicaID: UInt64]] = [:]
            // Old keys are 16 bytes, new ones longer: move them over in batches, in key order.
            var lower: [UInt8]? = nil
            while true {
                var batch: [([UInt8], Dot, DocumentKey)] = []
                try txn.forEach(dots, in: KeyRange(from: lower, to: nil)) { key, value in
                    guard key.count == 16 else { return true }
                    let old = Array(key)
                    let dot = Dot(
                        replica: ReplicaID(rawValue: Records.uint64(old[0..<8])!),
                        sequence: Records.uint64(old[8..<16])!)
                    batch.append((old, dot, try DocumentKey(bytes: value)))
                    return batch.count < 4_096
                }
                for (old, dot, document) in batch {
                    try txn.delete(dots, key: old)
                    try txn.put(
                        dots, key: Records.dotKey(document.profile, dot),
                        value: Array(document.bar.rawValue.utf8))
                    if dot.sequence > highest[document.profile]?[dot.replica] ?? 0 {
                        highest[document.profile, default: [:]][dot.replica] = dot.sequence
                    }
                }
                guard let last = batch.last else { break }
                lower = last.0 + [0]
            }
            var oldVersions: [[UInt8]] = []
            try txn.forEach(versions) { key, _ in
                if key.count == 8 { oldVersions.append(Array(key)) }
                return true
            }
            for key in oldVersions { try txn.delete(versions, key: key) }
            try txn.forEach(documents) { key, _ in
                let profile = try DocumentKey(bytes: key).profile
                if sequence > highest[profile]?[own] ?? 0 {
                    highest[profile, default: [:]][own] = sequence
                }
                return true
            }
            for (profile, replicas) in highest {
                for (replica, sequence) in replicas {
                    try txn.put(
                        versions, key: Records.versionKey(profile, replica),
                        value: Records.bigEndian(sequence))
                }
            }
            try txn.delete(meta, key: Records.MetaKey.sequence)
            try txn.put(
                meta, key: Records.MetaKey.schema, value: Records.bigEndian(UInt64(Records.schemaVersion))
            )
        }
    }
}
