import LMDBKit

/// Schema 1 → 2, in place, on the first writing open of a schema-1 store.
extension TabKeepStore {
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
