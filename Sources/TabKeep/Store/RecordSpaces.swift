import Foundation
import LMDBKit

/// Where one open store keeps documents, dots and versions: schema 3's one `profiles` tree, whose
/// keys carry a tag after profile ‖ 0x00 (see `Records`), or — a read-only open of a schema-1 or
/// schema-2 store — the three databases of the old layout, whose keys carry none.
///
/// Every key of the three kinds is built and read here, so the rest of the store reads the same
/// in both layouts: profile ‖ 0x00 ‖ (tag) ‖ rest, with `rest` the bar, replica ‖ sequence, or
/// replica.
struct RecordSpaces: Sendable {
    let documents: Database
    let dots: Database
    let versions: Database
    /// Whether keys carry schema 3's tag (all three kinds then share one database).
    let tagged: Bool

    /// The bytes between profile ‖ 0x00 and the rest of a key: the tag, or none.
    var tagCount: Int { tagged ? 1 : 0 }

    /// profile ‖ 0x00 ‖ (`tag`): the prefix of every record of that kind of one profile.
    func prefix(_ tag: UInt8, _ profile: ProfileID, reserving extra: Int = 0) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(profile.rawValue.utf8.count + 2 + extra)
        Self.appendUTF8(profile.rawValue, to: &key)
        key.append(0)
        if tagged { key.append(tag) }
        return key
    }

    /// Appends a string's UTF-8 with one copy (a small string's bytes are not contiguous, and
    /// `append(contentsOf: text.utf8)` would take them one at a time).
    @inline(__always)
    static func appendUTF8(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    func documentPrefix(_ profile: ProfileID) -> [UInt8] { prefix(Records.Tag.document, profile) }
    func dotPrefix(_ profile: ProfileID) -> [UInt8] { prefix(Records.Tag.dot, profile) }
    func versionPrefix(_ profile: ProfileID) -> [UInt8] { prefix(Records.Tag.version, profile) }

    /// The key of `key`'s document.
    func documentKey(_ key: DocumentKey) -> [UInt8] {
        var bytes = prefix(Records.Tag.document, key.profile, reserving: key.bar.rawValue.utf8.count)
        Self.appendUTF8(key.bar.rawValue, to: &bytes)
        return bytes
    }

    /// The key of `key`'s stored layout (schema 4's tagged tree only).
    func layoutKey(_ key: DocumentKey) -> [UInt8] {
        var bytes = prefix(Records.Tag.layout, key.profile, reserving: key.bar.rawValue.utf8.count)
        Self.appendUTF8(key.bar.rawValue, to: &bytes)
        return bytes
    }

    /// Calls `body` with the key of `key`'s document, built on the stack.
    func withDocumentKey<R>(_ key: DocumentKey, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withKey(key, Records.Tag.document, body)
    }

    /// Calls `body` with the key of `key`'s record tagged `tag` (a document or its layout), built
    /// on the stack; untagged, the document key of the old layout.
    func withKey<R>(_ key: DocumentKey, _ tag: UInt8, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows
        -> R
    {
        guard tagged else { return try key.withBytes(body) }
        var profile = key.profile.rawValue
        var bar = key.bar.rawValue
        let profileCount = profile.utf8.count
        let count = profileCount + 2 + bar.utf8.count
        return try withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { buffer in
            profile.withUTF8 { buffer.copyMemory(from: UnsafeRawBufferPointer($0)) }
            buffer[profileCount] = 0
            buffer[profileCount + 1] = tag
            bar.withUTF8 {
                UnsafeMutableRawBufferPointer(rebasing: buffer[(profileCount + 2)...])
                    .copyMemory(from: UnsafeRawBufferPointer($0))
            }
            return try body(UnsafeRawBufferPointer(buffer))
        }
    }

    /// The key of `dot` in `profile`: profile ‖ 0x00 ‖ (tag) ‖ origin (8 BE) ‖ sequence (8 BE), so
    /// one replica's dots in one profile are contiguous and in sequence order.
    func dotKey(_ profile: ProfileID, _ dot: Dot) -> [UInt8] {
        var key = prefix(Records.Tag.dot, profile, reserving: 16)
        Records.appendBigEndian(dot.replica.rawValue, to: &key)
        Records.appendBigEndian(dot.sequence, to: &key)
        return key
    }

    /// The keys of one profile's dots, built in one buffer that each key overwrites.
    func dotKeys(_ profile: ProfileID) -> DotKeys { DotKeys(prefix(Records.Tag.dot, profile, reserving: 16)) }

    /// The key of `replica`'s entry in `profile`'s vector: profile ‖ 0x00 ‖ (tag) ‖ replica (8 BE).
    func versionKey(_ profile: ProfileID, _ replica: ReplicaID) -> [UInt8] {
        var key = prefix(Records.Tag.version, profile, reserving: 8)
        Records.appendBigEndian(replica.rawValue, to: &key)
        return key
    }

    /// Calls `body` with ``versionKey(_:_:)`` built on the stack.
    func withVersionKey<R>(
        _ profile: ProfileID, _ replica: ReplicaID, _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        var text = profile.rawValue
        let profileCount = text.utf8.count
        let count = profileCount + 1 + tagCount + 8
        return try withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { buffer in
            text.withUTF8 { buffer.copyMemory(from: UnsafeRawBufferPointer($0)) }
            buffer[profileCount] = 0
            if tagged { buffer[profileCount + 1] = Records.Tag.version }
            buffer.storeBytes(of: replica.rawValue.bigEndian, toByteOffset: count - 8, as: UInt64.self)
            return try body(UnsafeRawBufferPointer(buffer))
        }
    }

    /// The document key of a document record's key (or, with `tag` ``Records/Tag/layout``, of a
    /// layout record's).
    func documentKey(from key: some Collection<UInt8>, tag: UInt8 = Records.Tag.document) throws
        -> DocumentKey
    {
        let fast = key.withContiguousStorageIfAvailable {
            DocumentKey(validStoredBytes: $0, tag: tagged ? tag : nil)
        }
        if let fast, let fast { return fast }
        return try checkedDocumentKey(from: key, tag: tag)
    }

    /// ``documentKey(from:tag:)`` through `DocumentKey(bytes:)` alone: the slow twin, which names
    /// what is wrong with the key.
    func checkedDocumentKey(from key: some Collection<UInt8>, tag: UInt8 = Records.Tag.document) throws
        -> DocumentKey
    {
        guard tagged else { return try DocumentKey(bytes: key) }
        var bytes = Array(key)
        guard let separator = bytes.firstIndex(of: 0), separator + 1 < bytes.count,
            bytes[separator + 1] == tag
        else {
            throw IdentifierError(
                field: "profile", value: String(decoding: bytes, as: UTF8.self),
                rule: "the key must be profile‖0x00‖\(Character(Unicode.Scalar(tag)))‖bar")
        }
        bytes.remove(at: separator + 1)
        return try DocumentKey(bytes: bytes)
    }

    /// The profile and dot of a dot record's key, or nil when malformed.
    func dot(from key: some Collection<UInt8>) -> (ProfileID, Dot)? {
        let bytes = Array(key)
        let profileCount = bytes.count - 17 - tagCount
        guard profileCount > 0, bytes[profileCount] == 0,
            !tagged || bytes[profileCount + 1] == Records.Tag.dot,
            let profile = try? ProfileID(String(decoding: bytes[..<profileCount], as: UTF8.self)),
            let replica = Records.uint64(bytes[(bytes.count - 16)..<(bytes.count - 8)]),
            let sequence = Records.uint64(bytes[(bytes.count - 8)...]), sequence > 0
        else { return nil }
        return (profile, Dot(replica: ReplicaID(rawValue: replica), sequence: sequence))
    }

    /// The profile and replica of a version record's key, or nil when malformed.
    func version(from key: some Collection<UInt8>) -> (ProfileID, ReplicaID)? {
        let bytes = Array(key)
        let profileCount = bytes.count - 9 - tagCount
        guard profileCount > 0, bytes[profileCount] == 0,
            !tagged || bytes[profileCount + 1] == Records.Tag.version,
            let profile = try? ProfileID(String(decoding: bytes[..<profileCount], as: UTF8.self)),
            let replica = Records.uint64(bytes[(bytes.count - 8)...]), replica != 0
        else { return nil }
        return (profile, ReplicaID(rawValue: replica))
    }

    /// The database of records tagged `tag`.
    func database(_ tag: UInt8) -> Database {
        switch tag {
        case Records.Tag.document: documents
        case Records.Tag.dot: dots
        default: versions
        }
    }

    /// Calls `body` with every record tagged `tag` whose key is at least `lower`, in key order;
    /// `body` returns false to stop. In the tagged tree, the records of the other kinds are
    /// stepped over, up to ``steppedSkips`` in a row, then skipped with a seek (to the kind, or
    /// past the profile), not stepped one by one (an older store's twenty dot records a profile).
    /// Keys that carry no tag are passed over (verify reports them).
    func forEach(
        _ txn: borrowing Transaction, _ tag: UInt8, from lower: [UInt8]? = nil,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        guard tagged else {
            try txn.forEach(database(tag), in: KeyRange(from: lower, to: nil), body)
            return
        }
        try txn.withCursor(documents) { cursor in
            var item = try lower.map { try cursor.seek(atLeast: $0) } ?? cursor.first()
            var target: [UInt8] = []
            var skipped = 0
            while let current = item {
                let key = current.key
                guard let separator = Self.separator(in: key), separator + 1 < key.count else {
                    item = try cursor.next()
                    continue
                }
                let found = key[separator + 1]
                if found == tag {
                    skipped = 0
                    guard try body(key, current.value) else { return }
                    item = try cursor.next()
                } else if skipped < Self.steppedSkips {
                    // A schema-6 profile holds few records of the other kinds (a document and a
                    // layout a bar, a version a replica): stepping over them costs less than a
                    // seek, which descends the tree again.
                    skipped += 1
                    item = try cursor.next()
                } else {
                    skipped = 0
                    // Before this kind: seek to it; past it: seek past the profile (profile ‖ 0x01).
                    // One buffer for every seek of the walk.
                    target.removeAll(keepingCapacity: true)
                    target.append(contentsOf: UnsafeRawBufferPointer(rebasing: key[..<separator]))
                    if found < tag {
                        target.append(0)
                        target.append(tag)
                    } else {
                        target.append(1)
                    }
                    item = try cursor.seek(atLeast: target)
                }
            }
        }
    }

    /// How many records of other kinds a walk steps over before it seeks instead.
    static let steppedSkips = 4

    /// The offset of a key's first 0x00 (the end of its profile), found with `memchr`.
    @inline(__always)
    static func separator(in key: UnsafeRawBufferPointer) -> Int? {
        guard let base = key.baseAddress, let found = memchr(base, 0, key.count) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// At least the number of records tagged `tag`: the entries of their database (in the tagged
    /// tree, every kind's), read from the tree's header, not counted.
    func upperBound(_ txn: borrowing Transaction, _ tag: UInt8) throws -> Int {
        try txn.count(database(tag))
    }

    /// Removes every record tagged `tag` (the old layout's database emptied, or the tree's records
    /// of that kind deleted in batches).
    func removeAll(_ txn: borrowing Transaction, _ tag: UInt8) throws {
        guard tagged else {
            try txn.removeAll(database(tag))
            return
        }
        var lower: [UInt8]? = nil
        while true {
            var batch: [[UInt8]] = []
            try forEach(txn, tag, from: lower) { key, _ in
                batch.append(Array(key))
                return batch.count < 4_096
            }
            for key in batch { try txn.delete(documents, key: key) }
            guard let last = batch.last else { return }
            lower = last + [0]
        }
    }
}

/// The keys of one profile's dots (`RecordSpaces.dotKey`), each written over the last in one
/// buffer: a document's dots are stored without an allocation per key.
struct DotKeys {
    private var bytes: [UInt8]
    private let start: Int

    fileprivate init(_ prefix: [UInt8]) {
        bytes = prefix
        start = prefix.count
        bytes.append(contentsOf: repeatElement(0, count: 16))
    }

    /// The key of `dot`; valid until the next call.
    mutating func key(_ dot: Dot) -> [UInt8] {
        let start = start
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: dot.replica.rawValue.bigEndian, toByteOffset: start, as: UInt64.self)
            raw.storeBytes(of: dot.sequence.bigEndian, toByteOffset: start + 8, as: UInt64.self)
        }
        return bytes
    }
}
