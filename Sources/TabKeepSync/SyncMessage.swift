public import TabKeep

/// One message of a sync exchange, in a binary, versioned and checksummed format.
///
/// ```swift
/// let bytes = try SyncSession(store: phone).request().encoded()    // send these anywhere
/// let message = try SyncMessage(decoding: bytes)                   // strict: refuses anything off
/// ```
///
/// Layout (all counts and lengths LEB128 varints, ids 8 bytes big-endian):
///
/// ```
/// "TKSY" · format version (1 byte) · kind (1 byte) · sender replica id
/// · vector: count, then (replica, sequence) in replica order   — the sender's version vector
/// · base:   count, then (replica, sequence) in replica order   — the entries are a delta past it
/// · entries: count, then (length, document key bytes, length, TabBarDocument.encoded()) in key order
/// · CRC-32 (4 bytes big-endian) of every byte before it
/// ```
///
/// Decoding refuses a newer format version, a checksum mismatch, counts or lengths past their
/// caps or past the bytes left, invalid ids, keys out of order, entries the vector does not
/// cover, and trailing bytes.
public struct SyncMessage: Hashable, Sendable {
    /// What a message is for, in the three-step exchange of ``SyncSession``.
    public enum Kind: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// Step 1: "here is my version vector". Carries no entries.
        case request = 1
        /// Step 2: "here is what you lack, and my version vector". Also the content of a
        /// ``FolderTransport`` file.
        case reply = 2
        /// Step 3: "and here is what you lack"; nothing answers it.
        case final = 3

        /// The kind's name.
        public var description: String {
            switch self {
            case .request: "request"
            case .reply: "reply"
            case .final: "final"
            }
        }
    }

    /// The four bytes every message starts with.
    public static let magic: [UInt8] = Array("TKSY".utf8)
    /// The format version this TabKeep writes; decoding refuses newer ones.
    public static let formatVersion: UInt8 = 1
    /// The largest message decoding accepts, in bytes.
    public static let maxSize = 64 << 20
    /// The most replicas a version vector in a message may name.
    public static let maxReplicas = 1 << 16
    /// The most documents one message may carry.
    public static let maxEntries = 1 << 20

    /// The step of the exchange.
    public var kind: Kind
    /// The replica that wrote the message.
    public var sender: ReplicaID
    /// The sender's version vector when it wrote the message (taken with the entries).
    public var vector: VersionVector
    /// The version the entries are a delta past: the receiver must have reached it, or applying
    /// the message would leave a gap. Empty for a request and for a full state.
    public var base: VersionVector
    /// The documents, each reduced to the entries the receiver lacks, in key order.
    public var entries: [DocumentDelta]

    /// A message; `entries` are put in key order and entries for the same key merged.
    public init(
        kind: Kind, sender: ReplicaID, vector: VersionVector, base: VersionVector = VersionVector(),
        entries: [DocumentDelta] = []
    ) {
        self.kind = kind
        self.sender = sender
        self.vector = vector
        self.base = base
        var byKey: [[UInt8]: DocumentDelta] = [:]
        for entry in entries {
            byKey[entry.key.bytes, default: DocumentDelta(key: entry.key, document: TabBarDocument())]
                .document.merge(entry.document)
        }
        self.entries = byKey.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.value)
    }

    /// The message's bytes.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes += SyncMessage.magic
        writer.byte(SyncMessage.formatVersion)
        writer.byte(kind.rawValue)
        writer.fixed64(sender.rawValue)
        writer.vector(vector)
        writer.vector(base)
        writer.varint(UInt64(entries.count))
        for entry in entries {
            writer.data(entry.key.bytes)
            writer.data(entry.document.encoded())
        }
        writer.fixed32(CRC32.checksum(writer.bytes))
        return writer.bytes
    }
}

extension ByteWriter {
    mutating func vector(_ vector: VersionVector) {
        let replicas = vector.replicas
        varint(UInt64(replicas.count))
        for replica in replicas {
            fixed64(replica.rawValue)
            varint(vector[replica])
        }
    }
}
