/// How the store lays its records out in LMDB (DESIGN.md §4).
///
/// Schema 3 keeps each profile's records together in one tree, `profiles`, keyed profile ‖ 0x00 ‖
/// tag: `d` + bar → the document, `l` + bar → the document's layout as resolved against the bar's
/// registered catalog when it was written (schema 4; see `StoredLayout`), `o` + replica (8 BE) +
/// sequence (8 BE) → the bar holding that
/// dot, `v` + replica (8 BE) → the profile's version-vector entry. An edit writes one leaf of that
/// tree and the change log, and nothing in `meta`: the clock rides in each change-log record
/// (clock (8 BE) ‖ document key) and the revision is the log's last key.
///
/// Schema 4 is schema 3 with layout records: a schema-3 store has none, so a writing open only
/// raises its schema (an older build, which would write documents without keeping their layout
/// records, refuses a schema-4 store).
///
/// Schema 5 is schema 4 with the change log's tail: the log's newest records (fewer than
/// ``changeTailBlock``) wait in LMDB's main database, whose page every commit writes anyway, and
/// join `changes` a block at a time. A schema-4 store's tail is empty, so a writing open only
/// raises its schema (an older build, which would take its revision and clock from `changes`
/// alone, refuses a schema-5 store).
///
/// Schema 6 is schema 5 without the `o` records: a document's dots are in the document, which is
/// where a sync reply, a vector's rebuild and `verify` read them (a reply reads a changed
/// profile's few documents; a rebuild takes each replica's highest dot among them). An edit
/// writes no dot record, and a profile holds about twenty records fewer. A writing open of a
/// schema-3 to schema-5 store deletes its dot records and raises its schema in one write
/// transaction; a read-only open reads it where it is, its dot records passed over (an older
/// build, which would look for a document's bars through dot records, refuses a schema-6 store).
///
/// Schemas 1 and 2 kept documents, dots and versions in three databases (`documents`, `dots`,
/// `versions`); a writing open migrates them, a read-only open reads them where they are.
enum Records {
    static let meta = "meta"
    /// Schema 3's one tree of every profile's records (documents, layouts and versions; dots up to
    /// schema 5).
    static let profiles = "profiles"
    static let catalogs = "catalogs"
    /// The store-wide change log that `changes()` polls for other processes' commits.
    static let changes = "changes"
    /// The databases of a schema-3 store, in the order `statistics()` lists them.
    static let all = [meta, profiles, catalogs, changes]

    /// Schemas 1 and 2: documents, dots and versions in databases of their own.
    static let documents = "documents"
    static let dots = "dots"
    static let versions = "versions"
    /// The databases an open of a schema-1 or schema-2 store opens (to read, or to migrate).
    static let legacy = [meta, documents, dots, versions, catalogs, changes, profiles]
    /// Room for every database either layout names, so both configurations share an environment.
    static let maxDatabases = 8

    /// The schema this version writes and reads (1 to 5 are migrated by a writing open).
    static let schemaVersion = 6
    /// The first schema whose `profiles` tree holds no dot records (`o`).
    static let firstSchemaWithoutDots = 6
    /// The first schema with one tagged tree (`profiles`); older ones open with the old databases.
    static let firstTaggedSchema = 3

    /// The tag after profile ‖ 0x00 of each kind of record in `profiles`.
    enum Tag {
        static let document: UInt8 = 0x64  // "d"
        static let layout: UInt8 = 0x6C  // "l"
        /// Schemas 3 to 5 only: a dot, naming the bar that holds it.
        static let dot: UInt8 = 0x6F  // "o"
        static let version: UInt8 = 0x76  // "v"
    }

    enum MetaKey {
        static let schema = Array("schema".utf8)
        static let replica = Array("replica".utf8)
        static let clock = Array("clock".utf8)
        /// Schema 1 only: the replica's one sequence for every profile.
        static let sequence = Array("sequence".utf8)
        static let created = Array("created".utf8)
        /// The replica ids this store had before, oldest first (8 bytes each).
        static let identities = Array("identities".utf8)
        /// Present in a backup copy: the replica id of the store it was copied from. The first open
        /// for writing takes a fresh id and removes it.
        static let copyOf = Array("copy-of".utf8)
        /// The number of the last change-log record.
        static let revision = Array("revision".utf8)
        /// The locking mode the store was created in (`lmdb` or `per-transaction`); absent in a
        /// store made before the mode existed, which is in `lmdb` mode.
        static let locking = Array("locking".utf8)
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8)
        appendBigEndian(value, to: &bytes)
        return bytes
    }

    /// Appends the 8 big-endian bytes of `value`: keys are built in one array, not concatenated.
    static func appendBigEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    static func uint64(_ bytes: some Collection<UInt8>) -> UInt64? {
        guard bytes.count == 8 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The fewest change-log records kept once there are that many; older ones are dropped
    /// ``changeLogTrimBatch`` at a time as new ones come.
    static let changeLogLimit: UInt64 = 100_000
    /// How many change-log records past the limit are dropped at once (a few leaves of the log).
    static let changeLogTrimBatch: UInt64 = 256

    /// Schema 5: the change log's newest records wait in LMDB's main database (``Database/main``)
    /// under this prefix and their revision (8 bytes, big-endian), and join `changes` a block at a
    /// time; the zero byte keeps the keys apart from every database name.
    static let changeTailPrefix: [UInt8] = [0] + Array("changes".utf8)
    /// Revisions after the last multiple of this wait in the tail (at most 7 records).
    static let changeTailBlock: UInt64 = 8

    /// The tail key of `revision`.
    static func changeTailKey(_ revision: UInt64) -> [UInt8] { changeTailPrefix + bigEndian(revision) }

    /// Calls `body` with ``changeTailKey(_:)`` built on the stack.
    static func withChangeTailKey<R>(_ revision: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R)
        rethrows -> R
    {
        let prefixCount = changeTailPrefix.count
        return try withUnsafeTemporaryAllocation(byteCount: prefixCount + 8, alignment: 1) { buffer in
            changeTailPrefix.withUnsafeBytes { buffer.copyMemory(from: $0) }
            buffer.storeBytes(of: revision.bigEndian, toByteOffset: prefixCount, as: UInt64.self)
            return try body(UnsafeRawBufferPointer(buffer))
        }
    }

    /// Calls `body` with `value` as 8 big-endian bytes on the stack (how every counter is stored).
    static func withBigEndian<R>(_ value: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
    {
        try withUnsafeBytes(of: value.bigEndian, body)
    }

    /// The first key past every tail key.
    static let changeTailEnd: [UInt8] = {
        var end = changeTailPrefix
        end[end.count - 1] += 1
        return end
    }()

    /// The revision a tail key names, or nil for a key of another length or prefix.
    static func changeTailRevision(_ key: UnsafeRawBufferPointer) -> UInt64? {
        guard key.count == changeTailPrefix.count + 8, key.starts(with: changeTailPrefix) else { return nil }
        return uint64(key.dropFirst(changeTailPrefix.count))
    }
}
