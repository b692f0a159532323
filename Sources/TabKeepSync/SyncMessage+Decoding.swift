import TabKeep

extension SyncMessage {
    /// The smallest possible message: magic, version, kind, sender, three zero counts, CRC.
    static let minimumSize = 4 + 1 + 1 + 8 + 3 + 4
    /// The longest encoded document key: a 128-byte profile, a NUL and a 64-byte bar.
    static let maxKeySize = 128 + 1 + 64

    /// Decodes `encoded()` output, checking everything; a message that is off in any way is
    /// refused whole with an error naming what is wrong.
    public init(decoding input: some Collection<UInt8>) throws(SyncError) {
        let size = input.count
        guard size <= SyncMessage.maxSize else { throw .tooLarge(size: size, limit: SyncMessage.maxSize) }
        let bytes = Array(input)
        guard bytes.count >= 4, Array(bytes[0..<4]) == SyncMessage.magic else { throw .notASyncMessage }
        guard bytes.count >= 5 else {
            throw .malformed(offset: 4, reason: "cut short reading the format version")
        }
        guard bytes[4] <= SyncMessage.formatVersion else {
            throw .newerFormat(found: bytes[4], supported: SyncMessage.formatVersion)
        }
        guard bytes[4] == SyncMessage.formatVersion else {
            throw .malformed(offset: 4, reason: "format version \(bytes[4]) does not exist")
        }
        guard bytes.count >= SyncMessage.minimumSize else {
            throw .malformed(
                offset: bytes.count,
                reason: "cut short: \(bytes.count) bytes, the smallest message is \(SyncMessage.minimumSize)")
        }
        let bodyEnd = bytes.count - 4
        let stored = bytes[bodyEnd...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let computed = CRC32.checksum(bytes[..<bodyEnd])
        guard stored == computed else { throw .checksumMismatch(stored: stored, computed: computed) }

        var reader = MessageReader(bytes, start: 5, end: bodyEnd)
        let kindStart = reader.offset
        let kindByte = try reader.byte("the kind")
        guard let kind = Kind(rawValue: kindByte) else {
            throw .malformed(offset: kindStart, reason: "unknown message kind \(kindByte)")
        }
        let senderStart = reader.offset
        let sender = ReplicaID(rawValue: try reader.bigEndian64("the sender"))
        guard sender.rawValue != 0 else {
            throw .malformed(offset: senderStart, reason: "sender replica id is 0")
        }
        let vector = try reader.vector("version vector")
        let base = try reader.vector("base vector")
        let entriesStart = reader.offset
        // Each entry takes at least 2 length bytes, a 1-byte key and a 2-byte document.
        let count = try reader.count("entry count", max: SyncMessage.maxEntries, minimumSize: 5)
        if kind == .request && (count > 0 || !base.isEmpty) {
            throw .malformed(offset: entriesStart, reason: "a request carries entries or a base")
        }
        var entries: [DocumentDelta] = []
        entries.reserveCapacity(count)
        var previousKey: ArraySlice<UInt8>?
        for index in 0..<count {
            let keyStart = reader.offset
            let keyBytes = try reader.lengthPrefixed("the key of entry \(index)", max: SyncMessage.maxKeySize)
            if let previousKey, !previousKey.lexicographicallyPrecedes(keyBytes) {
                throw .malformed(
                    offset: keyStart, reason: "entry \(index) is not in key order (or repeats a key)")
            }
            previousKey = keyBytes
            let key: DocumentKey
            do throws(IdentifierError) {
                key = try DocumentKey(bytes: keyBytes)
            } catch {
                throw .malformed(offset: keyStart, reason: "entry \(index) has an invalid key: \(error)")
            }
            let documentStart = reader.offset
            let documentBytes = try reader.lengthPrefixed(
                "the document of entry \(index)", max: reader.remaining)
            let document: TabBarDocument
            do throws(DocumentDecodingError) {
                document = try TabBarDocument(decoding: documentBytes)
            } catch {
                throw .malformed(
                    offset: documentStart, reason: "the document of entry \(index) is invalid: \(error)")
            }
            guard !document.isEmpty else {
                throw .malformed(offset: documentStart, reason: "the document of entry \(index) is empty")
            }
            if let dot = document.dots.first(where: { !vector.contains($0) }) {
                throw .malformed(
                    offset: documentStart,
                    reason: "entry \(index) holds dot \(dot), past the sender's version vector \(vector)")
            }
            entries.append(DocumentDelta(key: key, document: document))
        }
        guard reader.isAtEnd else {
            throw .malformed(
                offset: reader.offset, reason: "\(reader.remaining) trailing bytes after the entries")
        }
        self.kind = kind
        self.sender = sender
        self.vector = vector
        self.base = base
        self.entries = entries
    }
}

extension MessageReader {
    /// A version vector: replicas nonzero and strictly increasing, sequences nonzero.
    mutating func vector(_ what: String) throws(SyncError) -> VersionVector {
        let count = try count("\(what) size", max: SyncMessage.maxReplicas, minimumSize: 9)
        var vector = VersionVector()
        var previous: UInt64 = 0
        for _ in 0..<count {
            let start = offset
            let replica = try bigEndian64("a replica id of the \(what)")
            guard replica > previous else {
                throw fail("replica ids of the \(what) are zero or out of order", at: start)
            }
            previous = replica
            let sequenceStart = offset
            let sequence = try varint("a sequence of the \(what)")
            guard sequence > 0 else { throw fail("a sequence of the \(what) is 0", at: sequenceStart) }
            vector[ReplicaID(rawValue: replica)] = sequence
        }
        return vector
    }
}
