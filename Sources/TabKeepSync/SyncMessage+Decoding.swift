import Foundation
import TabKeep

extension SyncMessage {
    /// Whether `text` (decoded from `bytes`, invalid UTF-8 replaced) is `bytes` exactly: false for
    /// bytes that are not valid UTF-8. One `memcmp`, not the generic element-by-element walk.
    static func holdsExactly(_ bytes: ArraySlice<UInt8>, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            bytes.withUnsafeBufferPointer { bytes in
                utf8.count == bytes.count
                    && (bytes.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
            }
        }
    }

    /// The smallest possible message: magic, version, kind, sender, scope, a zero count, CRC.
    static let minimumSize = 4 + 1 + 1 + 8 + 1 + 1 + 4
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
        guard bytes[4] >= SyncMessage.oldestReadableFormatVersion else {
            throw .olderFormat(found: bytes[4], supported: SyncMessage.formatVersion)
        }
        let format = bytes[4]
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
        let scopeStart = reader.offset
        let scopeByte = try reader.byte("the scope")
        guard scopeByte <= 1 else {
            throw .malformed(offset: scopeStart, reason: "unknown scope \(scopeByte)")
        }
        var requesterRevision: UInt64?
        if format >= 5 {
            guard kind != .final else {
                throw .malformed(
                    offset: kindStart, reason: "a final message in format 5 (it has no revision)")
            }
            requesterRevision = try reader.varint("the requester's revision")
        }
        // Each section takes at least a 2-byte profile, two empty vectors and a document count.
        let sectionCount = try reader.count("section count", max: SyncMessage.maxProfiles, minimumSize: 5)
        var sections: [ProfileDelta] = []
        sections.reserveCapacity(sectionCount)
        var documentTotal = 0
        for index in 0..<sectionCount {
            let profileStart = reader.offset
            let profileBytes = try reader.lengthPrefixed("the profile of section \(index)", max: 128)
            let profile: ProfileID
            do throws(IdentifierError) {
                profile = try ProfileID(String(decoding: profileBytes, as: UTF8.self))
            } catch {
                throw .malformed(
                    offset: profileStart, reason: "section \(index) has an invalid profile: \(error)")
            }
            guard Self.holdsExactly(profileBytes, profile.rawValue) else {
                throw .malformed(
                    offset: profileStart, reason: "section \(index)'s profile is not valid UTF-8")
            }
            if let previous = sections.last, !(previous.profile < profile) {
                throw .malformed(
                    offset: profileStart, reason: "section \(index) is not in profile order (or repeats one)")
            }
            let vector = try reader.vector("version vector of \"\(profile)\"")
            let base = try reader.vector("base vector of \"\(profile)\"")
            let digest = format >= 3 ? try reader.digest("digest of \"\(profile)\"") : nil
            let countStart = reader.offset
            // Each document takes at least 2 length bytes, a 1-byte bar and a 2-byte document.
            let count = try reader.count("document count", max: SyncMessage.maxEntries, minimumSize: 5)
            documentTotal += count
            guard documentTotal <= SyncMessage.maxEntries else {
                throw .malformed(offset: countStart, reason: "more than \(SyncMessage.maxEntries) documents")
            }
            if kind == .request && (count > 0 || !base.isEmpty) {
                throw .malformed(offset: countStart, reason: "a request carries documents or a base")
            }
            var documents: [DocumentDelta] = []
            documents.reserveCapacity(count)
            for documentIndex in 0..<count {
                let barStart = reader.offset
                let barBytes = try reader.lengthPrefixed("a bar of \"\(profile)\"", max: 64)
                let bar: BarID
                do throws(IdentifierError) {
                    bar = try BarID(String(decoding: barBytes, as: UTF8.self))
                } catch {
                    throw .malformed(
                        offset: barStart, reason: "document \(documentIndex) of \"\(profile)\": \(error)")
                }
                guard Self.holdsExactly(barBytes, bar.rawValue) else {
                    throw .malformed(offset: barStart, reason: "a bar of \"\(profile)\" is not valid UTF-8")
                }
                if let previous = documents.last, !(previous.key.bar < bar) {
                    throw .malformed(
                        offset: barStart, reason: "bars of \"\(profile)\" out of order (or repeated)")
                }
                let documentStart = reader.offset
                let documentBytes = try reader.lengthPrefixed(
                    "the document of \"\(profile)\" bar \"\(bar)\"", max: reader.remaining)
                let document: TabBarDocument
                do throws(DocumentDecodingError) {
                    document = try TabBarDocument(decoding: documentBytes)
                } catch {
                    throw .malformed(
                        offset: documentStart,
                        reason: "the document of \"\(profile)\" bar \"\(bar)\" is invalid: \(error)")
                }
                guard !document.isEmpty else {
                    throw .malformed(
                        offset: documentStart,
                        reason: "the document of \"\(profile)\" bar \"\(bar)\" is empty")
                }
                let dots = document.dots
                if let index = dots.indices.dropFirst().first(where: { dots[$0 - 1] == dots[$0] }) {
                    throw .malformed(
                        offset: documentStart,
                        reason: "\"\(profile)\" bar \"\(bar)\" holds dot \(dots[index]) in two entries")
                }
                if let dot = dots.first(where: { !vector.contains($0) }) {
                    throw .malformed(
                        offset: documentStart,
                        reason:
                            "\"\(profile)\" bar \"\(bar)\" holds dot \(dot), past its section's vector \(vector)"
                    )
                }
                documents.append(
                    DocumentDelta(key: DocumentKey(profile: profile, bar: bar), document: document))
            }
            sections.append(
                ProfileDelta(
                    profile: profile, vector: vector, base: base, documents: documents, digest: digest))
        }
        guard reader.isAtEnd else {
            throw .malformed(
                offset: reader.offset, reason: "\(reader.remaining) trailing bytes after the sections")
        }
        self.kind = kind
        self.sender = sender
        self.scope = scopeByte == 0 ? .all : .only(Set(sections.map(\.profile)))
        self.sections = sections
        self.omitsUnchanged = format >= 4
        self.requesterRevision = requesterRevision
    }
}

extension MessageReader {
    /// A section's digest: a length of 0 (none) or ``SyncMessage/digestSize``, then its bytes.
    mutating func digest(_ what: @autoclosure () -> String) throws(SyncError) -> UInt32? {
        let bytes = try lengthPrefixed(what(), max: SyncMessage.digestSize)
        guard !bytes.isEmpty else { return nil }
        guard bytes.count == SyncMessage.digestSize else {
            throw fail("\(what()) is \(bytes.count) bytes, not 0 or \(SyncMessage.digestSize)")
        }
        return bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// A version vector: replicas nonzero and strictly increasing, sequences nonzero.
    mutating func vector(_ what: @autoclosure () -> String) throws(SyncError) -> VersionVector {
        let count = try count("\(what()) size", max: SyncMessage.maxReplicas, minimumSize: 9)
        var vector = VersionVector()
        var previous: UInt64 = 0
        for _ in 0..<count {
            let start = offset
            let replica = try bigEndian64("a replica id of the \(what())")
            guard replica > previous else {
                throw fail("replica ids of the \(what()) are zero or out of order", at: start)
            }
            previous = replica
            let sequenceStart = offset
            let sequence = try varint("a sequence of the \(what())")
            guard sequence > 0 else { throw fail("a sequence of the \(what()) is 0", at: sequenceStart) }
            // Replicas were just checked to increase and the sequence to be nonzero.
            _ = vector.appendInOrder(ReplicaID(rawValue: replica), sequence)
        }
        return vector
    }
}
