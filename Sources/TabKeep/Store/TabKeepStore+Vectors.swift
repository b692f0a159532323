import Foundation
import LMDBKit

/// Reading and writing `versions`, under one naming scheme: `versionVector…` are the public
/// whole-store reads, `readVector…(_ txn, …)` read inside a transaction the caller holds —
/// `readVector(_:of:)` one profile, `readVectorsInOrder(_:in:)` a scope as a list in profile
/// order (what a sync request carries), `readVectorsByProfile(_:in:)` the same as a dictionary,
/// `readVectors(_:of:)` a given list of profiles. A sync reads one vector per profile of the
/// store, so the bulk reads read keys in place (no copied key, no `String` per record) and make
/// each profile id once.
extension TabKeepStore {
    /// The highest sequence this store has seen from each replica in any profile: a summary for
    /// people and tools. Sync compares each profile's own vector (``versionVectors(_:)``).
    public func versionVector() throws(TabKeepError) -> VersionVector {
        var summary = VersionVector()
        for vector in try versionVectors(.all).values { summary.merge(vector) }
        return summary
    }

    /// The version vector of each profile in `scope` that this store holds anything of (every
    /// listed profile, empty when the store holds nothing of it).
    public func versionVectors(_ scope: ProfileScope = .all) throws(TabKeepError) -> [ProfileID:
        VersionVector]
    {
        return try read { txn in try readVectorsByProfile(txn, in: scope) }
    }

    /// `profile`'s version vector: for each replica, the highest sequence of it in this profile that
    /// the store holds or has seen superseded.
    func readVector(_ txn: borrowing Transaction, of profile: ProfileID) throws -> VersionVector {
        var vector = VersionVector()
        let prefix = spaces.versionPrefix(profile)
        try txn.forEach(versions, in: .prefix(prefix)) { key, value in
            let (profileCount, replica, sequence) = try versionRecord(key, value)
            guard profileCount + 1 + spaces.tagCount == prefix.count else {
                throw TabKeepError.corruptMeta("malformed versions record")
            }
            Self.set(&vector, replica, sequence)
            return true
        }
        return vector
    }

    /// `readVectorsInOrder(_:in:)` as a dictionary.
    func readVectorsByProfile(_ txn: borrowing Transaction, in scope: ProfileScope) throws -> [ProfileID:
        VersionVector]
    {
        var result: [ProfileID: VersionVector] = [:]
        for (profile, vector) in try readVectorsInOrder(txn, in: scope) { result[profile] = vector }
        return result
    }

    /// The vector of each profile in `scope` that this store holds anything of, in profile order
    /// (with `.only`, every listed profile, empty when the store holds nothing of it).
    func readVectorsInOrder(_ txn: borrowing Transaction, in scope: ProfileScope) throws -> [(
        profile: ProfileID, vector: VersionVector
    )] {
        switch scope {
        case .only(let profiles):
            return try profiles.sorted().map { ($0, try readVector(txn, of: $0)) }
        case .all:
            var result: [(profile: ProfileID, vector: VersionVector)] = []
            // At most one profile per record (in the tagged tree, a rough bound: no reservation).
            if !spaces.tagged { result.reserveCapacity(try txn.count(versions)) }
            var current: [UInt8] = []
            try spaces.forEach(txn, Records.Tag.version) { key, value in
                let (profileCount, replica, sequence) = try versionRecord(key, value)
                let profileBytes = UnsafeRawBufferPointer(rebasing: key[..<profileCount])
                let same = current.withUnsafeBufferPointer {
                    IdentifierRules.compare($0, profileBytes.assumingMemoryBound(to: UInt8.self)) == 0
                }
                if result.isEmpty || !same {
                    guard let profile = try? ProfileID(String(decoding: profileBytes, as: UTF8.self)) else {
                        throw TabKeepError.corruptMeta("malformed versions record")
                    }
                    current.removeAll(keepingCapacity: true)
                    current.append(contentsOf: profileBytes)
                    result.append((profile, VersionVector()))
                }
                Self.set(&result[result.count - 1].vector, replica, sequence)
                return true
            }
            return result
        }
    }

    /// The vectors of `profiles`, in their order. When they are sorted and many compared with the
    /// records of `versions`, one walk of `versions` reads them all; otherwise a range read each.
    func readVectors(_ txn: borrowing Transaction, of profiles: [ProfileID]) throws -> [VersionVector] {
        guard let first = profiles.first else { return [] }
        let sorted = zip(profiles, profiles.dropFirst()).allSatisfy { $0 < $1 }
        let records = try spaces.upperBound(txn, Records.Tag.version)
        // In the tagged tree, `versions` is counted with the documents and layouts: about three
        // records a profile (more in an older store, with its dots). The walk costs about a fifth
        // of a range read per profile it passes (callgrind, `sync-delta`): it pays when at least a
        // fifth of the profiles are listed.
        let enough = spaces.tagged ? profiles.count * 5 * 3 >= records : profiles.count * 16 >= records
        guard sorted, enough else {
            return try profiles.map { try readVector(txn, of: $0) }
        }
        var result = Array(repeating: VersionVector(), count: profiles.count)
        var index = 0
        try spaces.forEach(txn, Records.Tag.version, from: spaces.versionPrefix(first)) { key, value in
            let (profileCount, replica, sequence) = try versionRecord(key, value)
            let profileBytes = UnsafeRawBufferPointer(rebasing: key[..<profileCount])
            var order = Self.compare(profiles[index], profileBytes)
            while order < 0 {
                index += 1
                if index == profiles.count { return false }
                order = Self.compare(profiles[index], profileBytes)
            }
            if order == 0 { Self.set(&result[index], replica, sequence) }
            return true
        }
        return result
    }

    /// The digest of a profile with no document (0): a nonempty vector beside it claims entries
    /// no store can hold without holding a document, since nothing but a held entry beats one.
    /// A real state's digest is 0 once in 2³² profiles: then one needless full exchange.
    static var noDocumentsDigest: UInt32 { CRC32().value }

    /// Whether `profile` has at least one stored document.
    func holdsDocuments(_ txn: borrowing Transaction, _ profile: ProfileID) throws -> Bool {
        var found = false
        try txn.forEach(documents, in: .prefix(spaces.documentPrefix(profile))) { _, _ in
            found = true
            return false
        }
        return found
    }

    /// A digest of `profile`'s document state: the CRC-32 of each stored document's bar and
    /// bytes, in bar order (0 for a profile with no document). Two honest stores with equal
    /// vectors of a profile hold equal documents, so equal vectors over different digests prove
    /// that one of the vectors claims what its store lacks.
    func documentDigest(_ txn: borrowing Transaction, _ profile: ProfileID) throws -> UInt32 {
        let prefix = spaces.documentPrefix(profile)
        var crc = CRC32()
        try txn.forEach(documents, in: .prefix(prefix)) { key, value in
            Self.digest(&crc, bar: UnsafeRawBufferPointer(rebasing: key[prefix.count...]), document: value)
            return true
        }
        return crc.value
    }

    /// Adds one stored document (its bar and bytes) to a profile's digest.
    @inline(__always)
    static func digest(_ crc: inout CRC32, bar: UnsafeRawBufferPointer, document: UnsafeRawBufferPointer) {
        crc.update(byte: UInt8(truncatingIfNeeded: bar.count))
        crc.update(bar)
        withUnsafeBytes(of: UInt64(document.count).bigEndian) { crc.update($0) }
        crc.update(document)
    }

    /// The vector and the ``documentDigest(_:_:)`` of each profile in `scope` that has a vector,
    /// in profile order: what a sync request carries, and what a reply compares. Over the whole
    /// of schema 3's tree it is one cursor walk, each profile's documents read where they lie
    /// before its vector (its dots skipped with one seek), instead of a walk for the vectors and a
    /// range read per profile for the digests; otherwise it is those two
    /// (``readVectorsAndDigestsByParts(_:in:)``, the twin the tests compare it with).
    func readVectorsAndDigestsInOrder(_ txn: borrowing Transaction, in scope: ProfileScope) throws -> [(
        profile: ProfileID, vector: VersionVector, digest: UInt32
    )] {
        guard spaces.tagged, case .all = scope else {
            return try readVectorsAndDigestsByParts(txn, in: scope)
        }
        var result: [(profile: ProfileID, vector: VersionVector, digest: UInt32)] = []
        var current: [UInt8] = []  // the profile bytes of the records being read
        var listed = false  // whether `current` is in `result` yet
        var crc = CRC32()
        var target: [UInt8] = []
        var skipped = 0
        try txn.withCursor(spaces.documents) { cursor in
            var item = try cursor.first()
            while let record = item {
                let key = record.key
                // A key without a tag is passed over, as `RecordSpaces.forEach` does.
                guard let separator = RecordSpaces.separator(in: key), separator + 1 < key.count else {
                    item = try cursor.next()
                    continue
                }
                let profileBytes = UnsafeRawBufferPointer(rebasing: key[..<separator])
                let same = current.withUnsafeBytes {
                    $0.count == profileBytes.count
                        && ($0.count == 0
                            || memcmp($0.baseAddress!, profileBytes.baseAddress!, $0.count) == 0)
                }
                if !same {
                    current.removeAll(keepingCapacity: true)
                    current.append(contentsOf: profileBytes)
                    listed = false
                    crc = CRC32()
                }
                let tag = key[separator + 1]
                if tag == Records.Tag.document || tag == Records.Tag.version { skipped = 0 }
                switch tag {
                case Records.Tag.document:
                    Self.digest(
                        &crc, bar: UnsafeRawBufferPointer(rebasing: key[(separator + 2)...]),
                        document: record.value)
                    item = try cursor.next()
                case Records.Tag.version:
                    let (profileCount, replica, sequence) = try versionRecord(key, record.value)
                    guard profileCount == separator else {
                        throw TabKeepError.corruptMeta("malformed versions record")
                    }
                    if !listed {
                        guard let profile = try? ProfileID(String(decoding: profileBytes, as: UTF8.self))
                        else {
                            throw TabKeepError.corruptMeta("malformed versions record")
                        }
                        result.append((profile, VersionVector(), crc.value))
                        listed = true
                    }
                    Self.set(&result[result.count - 1].vector, replica, sequence)
                    item = try cursor.next()
                case _ where skipped < RecordSpaces.steppedSkips:
                    // Another kind, stepped over (a bar's layout record, in schema 6), as
                    // `RecordSpaces.forEach` does.
                    skipped += 1
                    item = try cursor.next()
                    continue
                case let tag:
                    // Many of another kind (an older store's dots): seek to the next kind this
                    // walk reads (the documents, or past dots the versions); past the versions,
                    // to the next profile (profile ‖ 0x01).
                    target.removeAll(keepingCapacity: true)
                    target.append(contentsOf: profileBytes)
                    if tag < Records.Tag.version {
                        target.append(0)
                        target.append(tag < Records.Tag.document ? Records.Tag.document : Records.Tag.version)
                    } else {
                        target.append(1)
                    }
                    skipped = 0
                    item = try cursor.seek(atLeast: target)
                }
            }
        }
        return result
    }

    /// ``readVectorsAndDigestsInOrder(_:in:)`` as two reads: the vectors in one walk, then each
    /// profile's digest by a range read of its documents.
    func readVectorsAndDigestsByParts(_ txn: borrowing Transaction, in scope: ProfileScope) throws -> [(
        profile: ProfileID, vector: VersionVector, digest: UInt32
    )] {
        try readVectorsInOrder(txn, in: scope).map {
            ($0.profile, $0.vector, try documentDigest(txn, $0.profile))
        }
    }

    /// `profile`'s vector rebuilt from the dots its documents hold (the highest held sequence of
    /// each replica), keeping this replica's own entry, which counts the sequences it has issued:
    /// an under-claim of everything else (superseded entries and clears that lost leave no dot
    /// behind), which is always safe. A document that does not decode proves nothing and counts
    /// for nothing (`verify` reports it).
    func provenVector(_ txn: borrowing Transaction, _ profile: ProfileID, own: ReplicaID, issued: UInt64)
        throws -> VersionVector
    {
        var proven = VersionVector()
        try forEachDocumentRecord(txn, of: profile) { _, value in
            guard let document = try? TabBarDocument(decoding: value) else { return true }
            for dot in document.dots where dot.sequence > proven[dot.replica] {
                proven[dot.replica] = dot.sequence
            }
            return true
        }
        if issued > proven[own] { proven[own] = issued }
        return proven
    }

    /// Replaces `profile`'s vector by `vector` (which may lower entries: only a rebuild from the
    /// documents' dots does that).
    func replaceVector(_ txn: borrowing Transaction, _ profile: ProfileID, with vector: VersionVector) throws
    {
        let current = try readVector(txn, of: profile)
        for replica in current.replicas where vector[replica] == 0 {
            try txn.delete(versions, key: spaces.versionKey(profile, replica))
        }
        for element in vector.storage where element.sequence != current[element.replica] {
            try txn.put(
                versions, key: spaces.versionKey(profile, element.replica),
                value: Records.bigEndian(element.sequence))
        }
    }

    /// A version record's profile length, replica and sequence, checked as
    /// `RecordSpaces.version(from:)` checks it (the profile id itself is the caller's to check).
    func versionRecord(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> (
        profileCount: Int, replica: ReplicaID, sequence: UInt64
    ) {
        let profileCount = key.count - 9 - spaces.tagCount
        guard profileCount > 0, key[profileCount] == 0, value.count == 8,
            !spaces.tagged || key[profileCount + 1] == Records.Tag.version
        else {
            throw TabKeepError.corruptMeta("malformed versions record")
        }
        let replica = Self.bigEndian(key, at: key.count - 8)
        guard replica != 0 else { throw TabKeepError.corruptMeta("malformed versions record") }
        return (profileCount, ReplicaID(rawValue: replica), Self.bigEndian(value, at: 0))
    }

    /// Sets a replica's entry read in key order (replicas increasing), falling back to the
    /// subscript when it is not past the others.
    static func set(_ vector: inout VersionVector, _ replica: ReplicaID, _ sequence: UInt64) {
        if !vector.appendInOrder(replica, sequence) { vector[replica] = sequence }
    }

    static func bigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<offset + 8 { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    /// Byte-wise three-way comparison of a profile id with a key's profile bytes.
    static func compare(_ profile: ProfileID, _ bytes: UnsafeRawBufferPointer) -> Int {
        var text = profile.rawValue
        return text.withUTF8 { IdentifierRules.compare($0, bytes.assumingMemoryBound(to: UInt8.self)) }
    }
}
