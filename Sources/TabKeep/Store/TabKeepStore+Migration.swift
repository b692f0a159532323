import LMDBKit

/// Schemas 1 to 5 → 6, in place, on the first writing open of an older store.
extension TabKeepStore {
    /// Migrates a schema-1 or schema-2 store to schema 6 in one write transaction, so a crash at
    /// any instant leaves the old schema or the new one, never a mix: LMDB commits the transaction
    /// whole or not at all, and the map grows (the transaction runs again) when the copy needs room.
    ///
    /// Schema 1 first becomes schema 2 (see `migrate1to2`); then every record of `documents` and
    /// `versions` is copied into `profiles` under its tag (schema 6 keeps no dot records), the
    /// three old databases are emptied (they stay behind, empty, since LMDBKit drops no database),
    /// each change-log record gains the clock in front of its document key, and `meta`'s schema
    /// becomes the current one (schemas 4 and 5 add records that an older store has none of).
    static func migrate(_ env: Environment, meta: Database, from old: RecordSpaces, to new: RecordSpaces)
        throws(TabKeepError)
    {
        let changeLog = try? env.database(Records.changes)
        do {
            try env.write { txn in
                var schema = try txn.get(meta, key: Records.MetaKey.schema).flatMap(Records.uint64)
                if schema == 1 {
                    try migrate1to2(txn, meta: meta, old)
                    schema = 2
                }
                guard schema == 2 else { return }
                try migrate2to3(txn, meta: meta, changeLog: changeLog, from: old, to: new)
                try txn.put(
                    meta, key: Records.MetaKey.schema, value: Records.bigEndian(UInt64(Records.schemaVersion))
                )
            }
        } catch {
            throw TabKeepError.wrap(error)
        }
    }

    /// Schemas 3, 4 and 5 → 6, in one write transaction that reads the schema again first
    /// (another process may have migrated the store meanwhile): the dot records are deleted (the
    /// documents hold their dots; layout records and the change log's tail, which schemas 4 and 5
    /// added, are records an older store has none of), and `meta`'s schema is raised. A crash at
    /// any instant leaves the old schema with every dot record or schema 6 with none.
    static func raiseSchema(_ env: Environment, meta: Database, spaces: RecordSpaces) throws(TabKeepError) {
        do {
            try env.write { txn in
                let schema = try txn.get(meta, key: Records.MetaKey.schema).flatMap(Records.uint64)
                guard let schema, schema >= UInt64(Records.firstTaggedSchema),
                    schema < UInt64(Records.schemaVersion)
                else { return }
                if schema < UInt64(Records.firstSchemaWithoutDots) {
                    try spaces.removeAll(txn, Records.Tag.dot)
                }
                try txn.put(
                    meta, key: Records.MetaKey.schema, value: Records.bigEndian(UInt64(Records.schemaVersion))
                )
            }
        } catch {
            throw TabKeepError.wrap(error)
        }
    }

    /// Copies schema 2's documents and versions into the tagged tree and empties the three old
    /// databases (the dots go: schema 6 keeps them in the documents only); prefixes each
    /// change-log record with the clock, which schema 3 reads from the log's last record.
    private static func migrate2to3(
        _ txn: borrowing Transaction, meta: Database, changeLog: Database?, from old: RecordSpaces,
        to new: RecordSpaces
    ) throws {
        func copy(_ database: Database, _ tag: UInt8) throws {
            var lower: [UInt8]? = nil
            while true {
                // Read a batch, then write it: a cursor's records are not kept across writes.
                var batch: [([UInt8], [UInt8])] = []
                try txn.forEach(database, in: KeyRange(from: lower, to: nil)) { key, value in
                    batch.append((Array(key), Array(value)))
                    return batch.count < 4_096
                }
                for (key, value) in batch {
                    guard let separator = key.firstIndex(of: 0) else {
                        throw TabKeepError.corruptMeta(
                            "\(database.name): a \(key.count)-byte key without a profile, not migrated")
                    }
                    var tagged = key
                    tagged.insert(tag, at: separator + 1)
                    try txn.put(new.documents, key: tagged, value: value)
                }
                guard let last = batch.last else { break }
                lower = last.0 + [0]
            }
            try txn.removeAll(database)
        }
        try copy(old.documents, Records.Tag.document)
        try txn.removeAll(old.dots)
        try copy(old.versions, Records.Tag.version)
        let clock = try txn.get(meta, key: Records.MetaKey.clock).flatMap(Records.uint64) ?? 0
        if let changeLog {
            var lower: [UInt8]? = nil
            while true {
                var batch: [([UInt8], [UInt8])] = []
                try txn.forEach(changeLog, in: KeyRange(from: lower, to: nil)) { key, value in
                    batch.append((Array(key), Array(value)))
                    return batch.count < 4_096
                }
                for (key, value) in batch {
                    try txn.put(changeLog, key: key, value: Records.bigEndian(clock) + value)
                }
                guard let last = batch.last else { break }
                lower = last.0 + [0]
            }
        }
    }

    /// Schema 1 → 2: `dots` keys gain their profile, and each profile gets its own vector — for
    /// every replica the highest of its dots in that profile, and for this replica its schema-1
    /// sequence, so its next edits in any profile never reuse a dot it already issued.
    private static func migrate1to2(_ txn: borrowing Transaction, meta: Database, _ old: RecordSpaces) throws
    {
        guard let own = try txn.get(meta, key: Records.MetaKey.replica).flatMap(Records.uint64) else {
            throw TabKeepError.corruptMeta("replica id missing or malformed")
        }
        let sequence = try txn.get(meta, key: Records.MetaKey.sequence).flatMap(Records.uint64) ?? 0
        var highest: [ProfileID: [ReplicaID: UInt64]] = [:]
        // Old keys are 16 bytes, new ones longer: move them over in batches, in key order.
        var lower: [UInt8]? = nil
        while true {
            var batch: [([UInt8], Dot, DocumentKey)] = []
            try txn.forEach(old.dots, in: KeyRange(from: lower, to: nil)) { key, value in
                guard key.count == 16 else { return true }
                let bytes = Array(key)
                let dot = Dot(
                    replica: ReplicaID(rawValue: Records.uint64(bytes[0..<8])!),
                    sequence: Records.uint64(bytes[8..<16])!)
                batch.append((bytes, dot, try DocumentKey(bytes: value)))
                return batch.count < 4_096
            }
            for (key, dot, document) in batch {
                try txn.delete(old.dots, key: key)
                try txn.put(
                    old.dots, key: old.dotKey(document.profile, dot), value: Array(document.bar.rawValue.utf8)
                )
                if dot.sequence > highest[document.profile]?[dot.replica] ?? 0 {
                    highest[document.profile, default: [:]][dot.replica] = dot.sequence
                }
            }
            guard let last = batch.last else { break }
            lower = last.0 + [0]
        }
        var oldVersions: [[UInt8]] = []
        try txn.forEach(old.versions) { key, _ in
            if key.count == 8 { oldVersions.append(Array(key)) }
            return true
        }
        for key in oldVersions { try txn.delete(old.versions, key: key) }
        try txn.forEach(old.documents) { key, _ in
            let profile = try DocumentKey(bytes: key).profile
            if sequence > highest[profile]?[ReplicaID(rawValue: own)] ?? 0 {
                highest[profile, default: [:]][ReplicaID(rawValue: own)] = sequence
            }
            return true
        }
        for (profile, replicas) in highest {
            for (replica, sequence) in replicas {
                try txn.put(
                    old.versions, key: old.versionKey(profile, replica), value: Records.bigEndian(sequence))
            }
        }
        try txn.delete(meta, key: Records.MetaKey.sequence)
        try txn.put(meta, key: Records.MetaKey.schema, value: Records.bigEndian(2))
    }
}
