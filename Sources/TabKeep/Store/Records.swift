/// How the store lays its records out in LMDB (DESIGN.md §4).
///
/// Schema 2 makes a profile the unit of replication: `dots` and `versions` are keyed by profile
/// first, so one profile's version vector and its dots past a peer's vector are range scans under
/// that profile alone.
enum Records {
    static let meta = "meta"
    static let documents = "documents"
    static let dots = "dots"
    static let versions = "versions"
    static let catalogs = "catalogs"
    /// The store-wide change log that `changes()` polls for other processes' commits.
    static let changes = "changes"
    static let all = [meta, documents, dots, versions, catalogs, changes]

    /// The schema this version writes and reads (1 is migrated on open).
    static let schemaVersion = 2

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

    /// profile ‖ 0x00: the prefix of every `dots` and `versions` key of one profile.
    static func profilePrefix(_ profile: ProfileID) -> [UInt8] {
        profilePrefix(profile, reserving: 0)
    }

    /// profile ‖ 0x00, with room for `extra` more bytes: keys are built in one array.
    private static func profilePrefix(_ profile: ProfileID, reserving extra: Int) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(profile.rawValue.utf8.count + 1 + extra)
        key.append(contentsOf: profile.rawValue.utf8)
        key.append(0)
        return key
    }

    /// The `dots` key: profile ‖ 0x00 ‖ origin (8 bytes BE) ‖ sequence (8 bytes BE), so one
    /// replica's dots in one profile are contiguous and in sequence order.
    static func dotKey(_ profile: ProfileID, _ dot: Dot) -> [UInt8] {
        var key = profilePrefix(profile, reserving: 16)
        appendBigEndian(dot.replica.rawValue, to: &key)
        appendBigEndian(dot.sequence, to: &key)
        return key
    }

    /// The profile and dot of a `dots` key, or nil when malformed.
    static func dot(from key: some Collection<UInt8>) -> (ProfileID, Dot)? {
        let bytes = Array(key)
        guard bytes.count > 17, bytes[bytes.count - 17] == 0,
            let profile = try? ProfileID(String(decoding: bytes[..<(bytes.count - 17)], as: UTF8.self)),
            let replica = uint64(bytes[(bytes.count - 16)..<(bytes.count - 8)]),
            let sequence = uint64(bytes[(bytes.count - 8)...]), sequence > 0
        else { return nil }
        return (profile, Dot(replica: ReplicaID(rawValue: replica), sequence: sequence))
    }

    /// The `versions` key: profile ‖ 0x00 ‖ replica (8 bytes BE).
    static func versionKey(_ profile: ProfileID, _ replica: ReplicaID) -> [UInt8] {
        var key = profilePrefix(profile, reserving: 8)
        appendBigEndian(replica.rawValue, to: &key)
        return key
    }

    /// The profile and replica of a `versions` key, or nil when malformed.
    static func version(from key: some Collection<UInt8>) -> (ProfileID, ReplicaID)? {
        let bytes = Array(key)
        guard bytes.count > 9, bytes[bytes.count - 9] == 0,
            let profile = try? ProfileID(String(decoding: bytes[..<(bytes.count - 9)], as: UTF8.self)),
            let replica = uint64(bytes[(bytes.count - 8)...]), replica != 0
        else { return nil }
        return (profile, ReplicaID(rawValue: replica))
    }

    /// The most change-log records kept; older ones are dropped as new ones come.
    static let changeLogLimit: UInt64 = 100_000
}
