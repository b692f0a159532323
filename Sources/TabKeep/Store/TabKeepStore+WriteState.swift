import LMDBKit

/// The replica state every write transaction reads and writes: the clock, the sequences, the
/// `versions` raises and the change log.
extension TabKeepStore {
    // MARK: Replica state, read and written inside every write transaction

    /// This replica's writer state, as committed (shared by every process on the store).
    func loadWriteState(_ txn: borrowing Transaction) throws -> ReplicaWriteState {
        guard let stored = try Self.uint64(txn, meta, key: Records.MetaKey.clock) else {
            throw TabKeepError.corruptMeta("clock missing or malformed")
        }
        // Edits leave `meta` alone: the clock they reached is in the change log's last record.
        let last = try lastChange(txn)
        let clock = max(stored, last?.clock ?? 0)
        let revision = max(try storedRevision(txn), last?.revision ?? 0)
        // The id as committed, not as this process last saw it: another process may have restored a
        // dump (replace) and taken a fresh id since, and writing under the retired one would reuse
        // sequences its peers already hold.
        guard let raw = try Self.uint64(txn, meta, key: Records.MetaKey.replica), raw != 0
        else {
            throw TabKeepError.corruptMeta("replica id missing or malformed")
        }
        let id = ReplicaID(rawValue: raw)
        if id != replicaID { identity.withLock { $0 = id } }
        return ReplicaWriteState(
            id: id, clock: HybridLogicalClock(last: Stamp(rawValue: clock)), storedClock: stored,
            revision: revision)
    }

    /// The change log's last record: its revision and (schema 3) the clock its transaction reached.
    /// The tail's last record when the tail holds any (schema 5: its records are the newest),
    /// else the last of `changes`.
    func lastChange(_ txn: borrowing Transaction) throws -> (revision: UInt64, clock: UInt64)? {
        var tail: (revision: UInt64, clock: UInt64)?
        try txn.forEach(.main, in: Self.wholeTail, reverse: true) { key, value in
            if let revision = Records.changeTailRevision(key), value.count >= 8 {
                tail = (revision, Self.bigEndian(value, at: 0))
            }
            return false
        }
        if let tail { return tail }
        guard let changeLog else { return nil }
        return try txn.withCursor(changeLog) { cursor in
            guard let last = try cursor.last(), let revision = Records.uint64(last.key) else { return nil }
            guard spaces.tagged, last.value.count >= 8 else { return (revision, 0) }
            return (revision, Self.bigEndian(last.value, at: 0))
        }
    }

    /// The last change-log revision: the log's last key (schema 3 writes no `revision` in `meta`
    /// per edit; the one a migrated store kept is a floor).
    func currentRevision(_ txn: borrowing Transaction) throws -> UInt64 {
        max(try storedRevision(txn), try lastChange(txn)?.revision ?? 0)
    }

    /// The revision `meta` keeps: a migrated store's floor (schema 3 writes none per edit), else 0.
    private func storedRevision(_ txn: borrowing Transaction) throws -> UInt64 {
        try Self.uint64(txn, meta, key: Records.MetaKey.revision) ?? 0
    }

    /// The 8-byte big-endian counter stored under `key`, read in place; nil when absent or not
    /// 8 bytes.
    static func uint64(_ txn: borrowing Transaction, _ database: Database, key: [UInt8]) throws -> UInt64? {
        try txn.withValue(database, key: key) { $0.flatMap(Records.uint64) }
    }

    /// The document key of a change-log record's value (schema 3: after the 8-byte clock).
    func changedKey(_ value: UnsafeRawBufferPointer) throws -> DocumentKey {
        guard spaces.tagged else { return try DocumentKey(bytes: value) }
        guard value.count > 8 else {
            throw TabKeepError.corruptMeta("a change-log record of \(value.count) bytes")
        }
        return try DocumentKey(bytes: UnsafeRawBufferPointer(rebasing: value[8...]))
    }

    /// The replica that writes `profile`'s entries: the shared clock and the profile's next sequence.
    func replica(for profile: ProfileID, _ writer: inout ReplicaWriteState, _ txn: borrowing Transaction)
        throws
        -> Replica
    {
        let sequence = try writer.sequences[profile] ?? readSequence(txn, profile, writer.id)
        return Replica(id: writer.id, clock: writer.clock, sequence: sequence)
    }

    /// Takes back what writing `profile` used from `replica`: its clock and its sequence.
    func absorb(_ replica: Replica, for profile: ProfileID, into writer: inout ReplicaWriteState) {
        writer.clock = replica.clock
        writer.sequences[profile] = replica.sequence
    }

    /// Writes the clock, every version the transaction raised (this replica's own sequences
    /// included), each `versions` record read and written once, and the change-log records of
    /// `changed`. Fails with ``TabKeepError/clockExhausted`` when the clock reached its end.
    @discardableResult
    func saveWriteState(
        _ txn: borrowing Transaction, _ writer: ReplicaWriteState, raising raises: VersionRaises,
        changed: [DocumentKey]
    ) throws -> ClosedRange<UInt64>? {
        if writer.clock.last >= Stamp.last { throw TabKeepError.clockExhausted }
        // The change log's records carry the clock; with none to write, `meta` keeps it.
        if changed.isEmpty && writer.clock.last.rawValue > writer.storedClock {
            try txn.put(
                meta, key: Records.MetaKey.clock, value: Records.bigEndian(writer.clock.last.rawValue))
        }
        var raises = raises
        writer.sequences.forEach { profile, sequence in raises.raise(profile, writer.id, to: sequence) }
        try writeRaises(txn, &raises)
        return try appendToChangeLog(txn, changed, clock: writer.clock.last.rawValue, after: writer.revision)
    }

    /// Raises `versions` to every sequence in `raises`, each record read and written once, in key
    /// order, and empties `raises`.
    func writeRaises(_ txn: borrowing Transaction, _ raises: inout VersionRaises) throws {
        try raises.highest.forEachInKeyOrder { profile, replicas in
            try replicas.forEachInKeyOrder { replica, sequence in
                try raiseVersion(txn, profile, replica, to: sequence)
            }
        }
        raises = VersionRaises()
    }

    func raiseVersion(
        _ txn: borrowing Transaction, _ profile: ProfileID, _ replica: ReplicaID, to sequence: UInt64
    )
        throws
    {
        try spaces.withVersionKey(profile, replica) { key in
            let current = try txn.withValue(versions, rawKey: key) { $0.flatMap(Records.uint64) } ?? 0
            guard sequence > current else { return }
            try Records.withBigEndian(sequence) { try txn.put(versions, rawKey: key, value: $0) }
        }
    }

    /// The highest sequence of `replica` that `profile`'s vector holds.
    func readSequence(_ txn: borrowing Transaction, _ profile: ProfileID, _ replica: ReplicaID) throws
        -> UInt64
    {
        try spaces.withVersionKey(profile, replica) { key in
            try txn.withValue(versions, rawKey: key) { $0.flatMap(Records.uint64) }
        } ?? 0
    }

    /// The tail keys of revisions after `revision`.
    static func tailRange(after revision: UInt64) -> KeyRange {
        KeyRange(from: Records.changeTailKey(revision &+ 1), to: Records.changeTailEnd)
    }

    /// ``tailRange(after:)`` of 0, built once: every write transaction reads the tail's last record.
    static let wholeTail = tailRange(after: 0)

    /// Calls `body` with every change-log record after `revision`, in revision order: those of
    /// `changes`, then the tail's (schema 5), until `body` returns false. The revision is nil for a
    /// record of `changes` whose key is not 8 bytes.
    func forEachChange(
        _ txn: borrowing Transaction, after revision: UInt64,
        _ body: (_ revision: UInt64?, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var going = true
        if let changeLog {
            try txn.forEach(changeLog, in: KeyRange(from: Records.bigEndian(revision + 1), to: nil)) {
                key, value in
                going = try body(Records.uint64(key), value)
                return going
            }
        }
        guard going else { return }
        try txn.forEach(.main, in: Self.tailRange(after: revision)) { key, value in
            guard let number = Records.changeTailRevision(key) else { return true }
            return try body(number, value)
        }
    }

    /// Records that `keys` changed, under the next revisions, each with the transaction's `clock`,
    /// and drops records past the limit, so other processes' ``changes()`` find them with one range
    /// scan and the next transaction finds the clock in the last record.
    ///
    /// The newest records, those after the last multiple of ``Records/changeTailBlock``, go to
    /// the tail in LMDB's main database, whose one page every commit writes anyway; when a
    /// commit's revisions reach the next multiple, the tail joins `changes` with them. So seven
    /// edits in eight write no page of `changes` (its branch and leaf), and the eighth writes them
    /// once for eight records. The tail's records are always newer than every record of `changes`.
    ///
    /// Records past `limit` go `batch` at a time, when the newest of a batch falls past it: the log
    /// keeps its newest `limit` to `limit + batch − 1` records. Dropping one record per append
    /// would rewrite the log's first leaf and its branch in every commit once a store has made
    /// `limit` changes; a batch frees whole pages once every `batch` appends.
    ///
    /// `known` is the last revision as ``loadWriteState(_:)`` read it in this transaction, which
    /// spares reading the log's last record again; nil reads it (the slow twin, which debug builds
    /// also run against `known`, so every test that commits compares the two).
    func appendToChangeLog(
        _ txn: borrowing Transaction, _ keys: [DocumentKey], clock: UInt64, after known: UInt64? = nil,
        limit: UInt64 = Records.changeLogLimit, batch: UInt64 = Records.changeLogTrimBatch
    ) throws -> ClosedRange<UInt64>? {
        guard !keys.isEmpty else { return nil }
        guard let changeLog else { throw TabKeepError.missingDatabase(Records.changes) }
        var revision = try known ?? currentRevision(txn)
        assert(
            known == nil || known == (try? currentRevision(txn)),
            "the write state's revision \(known ?? 0) is not the change log's")
        assert(limit >= Records.changeTailBlock, "a trim would reach the tail")
        let first = revision + 1
        let last = revision + UInt64(keys.count)
        // Revisions up to `settled` belong in `changes`, the ones after it in the tail.
        let settled = last - last % Records.changeTailBlock
        if settled > revision - revision % Records.changeTailBlock {
            try settleTail(txn, into: changeLog)
        }
        var value: [UInt8] = []
        value.reserveCapacity(72)
        for key in keys {
            revision += 1
            value.removeAll(keepingCapacity: true)
            Records.appendBigEndian(clock, to: &value)
            key.withBytes { value.append(contentsOf: $0) }
            if revision <= settled {
                try txn.put(changeLog, key: Records.bigEndian(revision), value: value)
            } else {
                try Records.withChangeTailKey(revision) { tailKey in
                    try value.withUnsafeBytes { try txn.put(.main, rawKey: tailKey, value: $0) }
                }
            }
            if revision > limit && (revision - limit) % batch == 0 {
                let end = revision - limit
                // A store that dropped one record at a time holds only the newest few of these.
                for old in (end - batch + 1)...end {
                    _ = try txn.delete(changeLog, key: Records.bigEndian(old))
                }
            }
        }
        return first...revision
    }

    /// Moves every tail record into `changes`, under the same revision.
    private func settleTail(_ txn: borrowing Transaction, into changeLog: Database) throws {
        var records: [(key: [UInt8], revision: UInt64, value: [UInt8])] = []
        try txn.forEach(.main, in: Self.wholeTail) { key, value in
            if let revision = Records.changeTailRevision(key) {
                records.append((Array(key), revision, Array(value)))
            }
            return true
        }
        for record in records {
            try txn.put(changeLog, key: Records.bigEndian(record.revision), value: record.value)
            _ = try txn.delete(.main, key: record.key)
        }
    }
}
/// This replica inside one write transaction: the clock every profile shares and the sequence each
/// profile it wrote has reached.
struct ReplicaWriteState {
    let id: ReplicaID
    var clock: HybridLogicalClock
    /// The clock `meta` holds (written only by a transaction that logs no change).
    var storedClock: UInt64 = 0
    /// The change log's last revision as this transaction read it, while nothing else has appended
    /// to the log since; nil when it must be read again (a state carried into another file).
    var revision: UInt64?
    var sequences = SmallMap<ProfileID, UInt64>()
}

/// The highest sequence per (profile, replica) that one write transaction added: `versions` is
/// raised once per pair at the end of the transaction instead of a get and a put per document.
struct VersionRaises {
    private(set) var highest = SmallMap<ProfileID, SmallMap<ReplicaID, UInt64>>()

    mutating func raise(_ profile: ProfileID, _ replica: ReplicaID, to sequence: UInt64) {
        // In place: a profile's map of several replicas is not copied for each raise.
        guard sequence > highest[profile]?[replica] ?? 0 else { return }
        highest[profile, default: SmallMap()][replica] = sequence
    }
}
