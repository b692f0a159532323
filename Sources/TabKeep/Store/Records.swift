/// How the store lays its records out in LMDB (DESIGN.md §4).
enum Records {
    static let meta = "meta"
    static let documents = "documents"
    static let dots = "dots"
    static let versions = "versions"
    static let catalogs = "catalogs"
    static let all = [meta, documents, dots, versions, catalogs]

    /// The schema this version writes and reads.
    static let schemaVersion = 1

    enum MetaKey {
        static let schema = Array("schema".utf8)
        static let replica = Array("replica".utf8)
        static let clock = Array("clock".utf8)
        static let sequence = Array("sequence".utf8)
        static let created = Array("created".utf8)
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }

    static func uint64(_ bytes: some Collection<UInt8>) -> UInt64? {
        guard bytes.count == 8 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The `dots` key: origin (8 bytes BE) ‖ sequence (8 bytes BE), so one replica's dots are contiguous
    /// and in sequence order.
    static func dotKey(_ dot: Dot) -> [UInt8] {
        bigEndian(dot.replica.rawValue) + bigEndian(dot.sequence)
    }

    static func dot(from key: UnsafeRawBufferPointer) -> Dot? {
        guard key.count == 16, let replica = uint64(key.prefix(8)), let sequence = uint64(key.suffix(8))
        else {
            return nil
        }
        return Dot(replica: ReplicaID(rawValue: replica), sequence: sequence)
    }
}
