public import TabKeep

/// One message of a sync exchange, in a binary, versioned and checksummed format.
///
/// ```swift
/// let bytes = try SyncSession(store: phone, scope: .only([alice])).request().encoded()
/// let message = try SyncMessage(decoding: bytes)                   // strict: refuses anything off
/// ```
///
/// Layout, formats 3, 4 and 5 (all counts and lengths LEB128 varints, ids 8 bytes big-endian):
///
/// ```
/// "TKSY" · format version 3, 4 or 5 (1 byte) · kind (1 byte) · sender replica id
/// · scope: 0 every profile, 1 only the profiles listed below
/// · format 5 only: the requester's revision (varint)
/// · sections: count, then per profile in profile order:
///     profile (length, UTF-8) · vector (count, then (replica, sequence) in replica order)
///     · base (the same) · digest (length 0 — a final message carries none — or 4, then the
///       CRC-32 of the sender's documents of the profile, big-endian)
///     · documents: count, then (length, bar UTF-8, length, TabBarDocument.encoded()) in bar order
/// · CRC-32 (4 bytes big-endian) of every byte before it
/// ```
///
/// A profile is the unit of replication: each section carries that profile's own vector, the
/// base its documents are a delta past, and a digest of the sender's documents of the profile,
/// so equal vectors over different documents are found (see `OverClaim` (TabKeep)). Format 4 has
/// format 3's layout and marks a message of an exchange that skips what both sides agree on
/// (``omitsUnchanged``): a format-4 request asks for a format-4 reply; a format-4 reply still
/// lists every profile (the final answering it needs each vector) but its receiver passes over
/// each unchanged section its own vector equals, and answers with a format-4 final, which leaves
/// out every profile whose vector equals the reply's. A message that skips nothing is written as
/// format 3, which a TabKeep before format 4 reads.
///
/// Format 5 is format 4 with the ``requesterRevision`` after the scope byte, in a request and in
/// the reply that answers it (a final is never format 5): its reply leaves out every profile
/// whose vector and digest equal the request's, so what the exchange decodes, applies and
/// answers grows with what differs, not with the store. The requester answers the profiles the
/// reply lists, and the ones its own change log shows changed since the revision it sent (those
/// go whole, since all it knows of the replier's state of them is that it equalled the request).
/// Format 2 is format 3 without the digest and
/// is still read (its sections have no digest). Decoding refuses
/// format 1 (with a message naming it), a newer format, a checksum mismatch, counts or lengths
/// past their caps or past the bytes left, invalid ids, profiles or bars out of order, entries
/// their section's vector does not cover, and trailing bytes.
public struct SyncMessage: Hashable, Sendable {
    /// What a message is for, in the three-step exchange of ``SyncSession``.
    public enum Kind: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// Step 1: "here are my version vectors for the scope". Carries no documents.
        case request = 1
        /// Step 2: "here is what you lack, and my vectors". Also the content of a
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
    /// The format version this TabKeep writes (and the newest it reads).
    public static let formatVersion: UInt8 = 5
    /// The oldest format version this TabKeep reads: 2, which has no digests.
    public static let oldestReadableFormatVersion: UInt8 = 2
    /// The bytes of a section's digest.
    static let digestSize = 4
    /// The largest message decoding accepts, in bytes.
    public static let maxSize = 64 << 20
    /// The most replicas a version vector in a message may name.
    public static let maxReplicas = 1 << 16
    /// The most documents one message may carry.
    public static let maxEntries = 1 << 20
    /// The most profile sections one message may carry.
    public static let maxProfiles = 1 << 20

    /// The step of the exchange.
    public var kind: Kind
    /// The replica that wrote the message.
    public var sender: ReplicaID
    /// The profiles the exchange covers: a scoped exchange never carries anything of another.
    public var scope: ProfileScope
    /// One section per profile, in profile order.
    public var sections: [ProfileDelta]
    /// Whether the message belongs to an exchange that skips what both sides agree on (format 4):
    /// a request asks for a format-4 reply; the receiver of a format-4 reply passes over each
    /// section the replier found unchanged (vector equal to base, no documents) that its own
    /// vector equals, and answers with a format-4 final, which has no section for a profile
    /// whose vector equals the reply's. False (format 3): every message lists every profile of
    /// the scope. A request sent to a TabKeep that reads only format 3 must have this false
    /// (that TabKeep refuses format 4 as ``SyncError/newerFormat(found:supported:)``).
    public var omitsUnchanged: Bool
    /// Format 5: in a request, the requester's change-log revision in the snapshot its vectors
    /// were read from; in the reply, the request's, echoed. A reply carrying it leaves out every
    /// profile whose vector and digest equal the request's (see the type's discussion). Nil in a
    /// final, and in formats 4 and older: a request sent to a TabKeep that reads only format 4
    /// must have this nil (that TabKeep refuses format 5 as
    /// ``SyncError/newerFormat(found:supported:)``). Only a request or a reply that
    /// ``omitsUnchanged`` is written with it.
    public var requesterRevision: UInt64?

    /// A message. For a scope of listed profiles, `sections` may only hold those profiles.
    public init(
        kind: Kind, sender: ReplicaID, scope: ProfileScope, sections: [ProfileDelta] = [],
        omitsUnchanged: Bool = false, requesterRevision: UInt64? = nil
    ) {
        self.omitsUnchanged = omitsUnchanged
        self.requesterRevision = requesterRevision
        self.kind = kind
        self.sender = sender
        self.scope = scope
        // Sections usually come in profile order already (a delta is read in key order).
        let inOrder = zip(sections, sections.dropFirst()).allSatisfy { !($1.profile < $0.profile) }
        self.sections = inOrder ? sections : sections.sorted { $0.profile < $1.profile }
    }

    /// Every document of every section.
    public var documents: [DocumentDelta] { sections.flatMap(\.documents) }

    /// Each section's vector, by profile (a message built with two sections of one profile, which
    /// no decoded message has, gives their pointwise maximum).
    public var vectors: [ProfileID: VersionVector] {
        Dictionary(sections.map { ($0.profile, $0.vector) }) { first, second in
            var merged = first
            merged.merge(second)
            return merged
        }
    }

    /// Each section's vector, in profile order (the order `init` sorts sections in); refuses a
    /// message whose sections were set out of order or with a profile twice, which a decoded
    /// message never has.
    func sortedVectors() throws(SyncError) -> [(profile: ProfileID, vector: VersionVector)] {
        for (previous, section) in zip(sections, sections.dropFirst())
        where !(previous.profile < section.profile) {
            throw .malformed(
                offset: 0,
                reason: "sections not in strictly increasing profile order (at \"\(section.profile)\")")
        }
        return sections.map { ($0.profile, $0.vector) }
    }

    /// The message's bytes: format 5 for a request or reply that ``omitsUnchanged`` with a
    /// ``requesterRevision``, else format 4 when it ``omitsUnchanged``, else format 3.
    public func encoded() -> [UInt8] { encoded(format: writtenFormat) }

    /// The format ``encoded()`` writes.
    var writtenFormat: UInt8 {
        guard omitsUnchanged else { return 3 }
        return requesterRevision != nil && kind != .final ? 5 : 4
    }

    /// The message's bytes in `format`: 5 (with the requester's revision, which it must have),
    /// 4 or 3 (format 5's layout without the revision), or 2 (no digests), as an older TabKeep
    /// wrote it.
    func encoded(format: UInt8) -> [UInt8] {
        precondition((2...5).contains(format), "only formats 2 to 5 are written")
        precondition(format != 5 || (requesterRevision != nil && kind != .final), "format 5 needs a revision")
        var writer = ByteWriter()
        SyncMessage.magic.withUnsafeBytes { writer.raw($0) }
        writer.byte(format)
        writer.byte(kind.rawValue)
        writer.fixed64(sender.rawValue)
        switch scope {
        case .all: writer.byte(0)
        case .only: writer.byte(1)
        }
        if format == 5, let requesterRevision { writer.varint(requesterRevision) }
        writer.varint(UInt64(sections.count))
        for section in sections {
            writer.string(section.profile.rawValue)
            writer.vector(section.vector)
            writer.vector(section.base)
            if format == 2 {
                // Format 2 has no digest.
            } else if let digest = section.digest {
                writer.varint(UInt64(SyncMessage.digestSize))
                writer.fixed32(digest)
            } else {
                writer.varint(0)
            }
            let documents = section.documents.sorted { $0.key.bar < $1.key.bar }
            writer.varint(UInt64(documents.count))
            for document in documents {
                writer.string(document.key.bar.rawValue)
                writer.data(document.document.encoded())
            }
        }
        let checksum = writer.withWritten { CRC32.checksum($0) }
        writer.fixed32(checksum)
        return writer.finish()
    }
}

extension ByteWriter {
    mutating func vector(_ vector: VersionVector) {
        varint(UInt64(vector.storage.count))
        for element in vector.storage {
            fixed64(element.replica.rawValue)
            varint(element.sequence)
        }
    }
}
