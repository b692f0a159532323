/// Goes from an encoded document straight to its ``Layout``, without building the document.
///
/// It checks exactly what `TabBarDocument(decoding:)` checks — every bound, the canonical order,
/// the caps, every value and the clear's tombstones — so it accepts and refuses the same bytes,
/// but it builds no `Entry`: tab id bytes are matched against the catalog's (``CatalogIDIndex``)
/// and only what the layout reads is kept. `LayoutDecoderDifferentialTests` feeds it and the full
/// path the same valid and mutated documents: same decision, same layout.
///
/// Catalogs with renames take the full path: an old and a new id of one tab both written need last
/// writer wins between the two entries, which the full path already does.
///
/// ```swift
/// let layout = try LayoutDecoder.layout(decoding: buffer, catalog: catalog)
/// ```
struct LayoutDecoder {
    /// The layout of the encoded document in `bytes` with `catalog`; throws where the full decoder
    /// would refuse the bytes (the error may name another problem than the full decoder's).
    static func layout(decoding bytes: UnsafeBufferPointer<UInt8>, catalog: Catalog)
        throws(DocumentDecodingError) -> Layout
    {
        if !catalog.renames.isEmpty {
            return try TabBarDocument(decoding: bytes).layout(catalog: catalog)
        }
        let result = catalog.idIndex.bytes.withUnsafeBufferPointer {
            ids -> Result<Layout, DocumentDecodingError> in
            var decoder = LayoutDecoder(bytes, catalog: catalog, ids: ids)
            do throws(DocumentDecodingError) {
                return .success(try decoder.decode())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The layout of the stored document `bytes` of `key`, reporting a document that does not decode
    /// with the full decoder's error, exactly as a read through `TabBarDocument(decoding:)` does.
    static func layout(storedBytes bytes: UnsafeRawBufferPointer, key: DocumentKey, catalog: Catalog)
        throws(TabKeepError) -> Layout
    {
        // LMDB values are plain bytes, so binding them to UInt8 is what the standard library's own
        // `withContiguousStorageIfAvailable` of a raw buffer does.
        let buffer = bytes.assumingMemoryBound(to: UInt8.self)
        do throws(DocumentDecodingError) {
            return try layout(decoding: buffer, catalog: catalog)
        } catch {
            // Refusals are rare (a damaged store): the full decoder names the problem as it always has.
            do throws(DocumentDecodingError) {
                return try TabBarDocument(decoding: buffer).layout(catalog: catalog)
            } catch {
                throw .corruptDocument(key, error)
            }
        }
    }

    private var reader: ByteReader
    private var bar: ResolvedBar
    private let catalog: Catalog
    /// The catalog's id bytes in byte order (``CatalogIDIndex/bytes``).
    private let ids: UnsafeBufferPointer<UInt8>
    /// The key of the previous entry: kind, tab bytes (empty for kinds without a tab), replica.
    private var previousCode = -1
    private var previousTab = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var previousReplica: UInt64 = 0
    private var kindCount = 0
    /// The next catalog id (in byte order) that a tab of the current kind may match, and the
    /// catalog index the current entry's tab matched (kind 6 repeats a tab once per replica).
    private var nextID = 0
    private var match: Int?
    /// Every entry's dot and whether it is a tombstone, for the clear's check at the end.
    private var dots: [EntryDot] = []
    private var removedCount = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>, catalog: Catalog, ids: UnsafeBufferPointer<UInt8>) {
        reader = ByteReader(bytes)
        bar = ResolvedBar(catalog: catalog)
        self.catalog = catalog
        self.ids = ids
    }

    private mutating func decode() throws(DocumentDecodingError) -> Layout {
        let format = try reader.byte()
        guard format == TabBarDocument.formatVersion || format == TabBarDocument.formatVersion2 else {
            throw DocumentDecodingError(offset: 0, reason: "unknown document format \(format)")
        }
        reader.allowsVersion2Values = format == TabBarDocument.formatVersion2
        let count = try reader.count(max: TabBarDocument.maxEntries, "entry count")
        dots.reserveCapacity(min(count, reader.remaining / 20))
        var context: VersionVector?
        for _ in 0..<count {
            context = try entry()
        }
        guard reader.isAtEnd else { throw reader.fail("trailing bytes") }
        if format == TabBarDocument.formatVersion2 && !reader.sawVersion2Value {
            throw DocumentDecodingError(offset: 0, reason: "format 2 for a document that needs only format 1")
        }
        // Tombstones exactly where the clear's context covers: the canonical form.
        if let context {
            for entry in dots.dropLast() where context.contains(entry.dot) != entry.removed {
                throw DocumentDecodingError(
                    offset: reader.buffer.count, reason: "an entry disagrees with the clear's context")
            }
        } else if removedCount > 0 {
            throw DocumentDecodingError(offset: reader.buffer.count, reason: "removed entry without a clear")
        }
        bar.resolve()
        return bar.layout
    }

    /// Reads one entry, checks it and its place in the order, and records what the layout needs.
    /// Returns the clear's context when the entry is the clear.
    private mutating func entry() throws(DocumentDecodingError) -> VersionVector? {
        let start = reader.offset
        let code = try reader.byte()
        guard code <= 7 else {
            reader.offset = start
            throw reader.fail("unknown entry kind \(code)")
        }
        let hasTab = code != 3 && code != 7
        let tab = hasTab ? try reader.tabBytes() : UnsafeBufferPointer(start: nil, count: 0)
        let replica = code == 6 ? try reader.fixed64() : 0
        try checkOrder(code: Int(code), tab: tab, replica: replica, start: start)
        _ = try reader.varint()  // the stamp: last writer wins needs it, the layout does not
        _ = try reader.fixed64()  // the origin
        let dotReplica = ReplicaID(rawValue: try reader.fixed64())
        let sequenceStart = reader.offset
        let sequence = try reader.varint()
        guard sequence > 0 else {
            reader.offset = sequenceStart
            throw reader.fail("dot sequence 0")
        }
        let tag = try reader.byte()
        guard tag <= 1 || (tag == 2 && reader.allowsVersion2Values) else {
            throw reader.fail("unknown value tag \(tag)")
        }
        let removed = tag == 0
        dots.append(EntryDot(dot: Dot(replica: dotReplica, sequence: sequence), removed: removed))
        if removed {
            guard code != 7 else { throw reader.fail("a clear cannot be removed") }
            removedCount += 1
            return nil
        }
        if tag == 2 { reader.sawVersion2Value = true }
        let index = match
        switch code {
        case 0:
            let position = try self.position(tag: tag)
            if let index { bar.setPosition(position, at: index) }
        case 1, 2:
            guard tag == 1 else { throw reader.fail("value tag 2 on an entry that has no second form") }
            let flag = try reader.byte()
            guard flag <= 1 else { throw reader.fail("flag \(flag) is not 0 or 1") }
            if let index {
                if code == 1 {
                    bar.setCustomizable(flag == 1, at: index)
                } else {
                    bar.setHidden(flag == 1, at: index)
                }
            }
        case 3:
            guard tag == 1 else { throw reader.fail("value tag 2 on an entry that has no second form") }
            switch try reader.byte() {
            case 0: bar.storedSelection = .none
            case 1: bar.storedSelection = .more
            case 2: bar.storedSelection = .tab(try reader.tab())
            default: throw reader.fail("unknown selection kind")
            }
        case 4:
            guard tag == 1 else { throw reader.fail("value tag 2 on an entry that has no second form") }
            switch try reader.byte() {
            case 0: break
            case 1:
                let text = try reader.string(max: Entry.maxBadgeTextBytes, "badge text")
                if let index { bar.texts[catalog.tabs[index].id] = text }
            default: throw reader.fail("unknown badge text kind")
            }
        case 5:
            let reset = try badgeReset(tag: tag)
            if let index { bar.resets[catalog.tabs[index].id] = reset }
        case 6:
            guard tag == 1 else { throw reader.fail("value tag 2 on an entry that has no second form") }
            let valueStart = reader.offset
            let total = try reader.signed()
            guard total.magnitude <= UInt64(Entry.maxBadge) else {
                reader.offset = valueStart
                throw reader.fail("badge total out of range")
            }
            if let index {
                bar.totals[catalog.tabs[index].id, default: [:]][ReplicaID(rawValue: replica)] = total
            }
        default:
            return try clear(tag: tag)
        }
        return nil
    }

    /// Checks that the key (kind, tab bytes, replica) follows the previous one in the canonical
    /// order and that its kind stays within its cap, as the full decoder does with `Entry.Key`'s `<`.
    private mutating func checkOrder(code: Int, tab: UnsafeBufferPointer<UInt8>, replica: UInt64, start: Int)
        throws(DocumentDecodingError)
    {
        var sameTab = false
        if code == previousCode {
            let order = IdentifierRules.compare(previousTab, tab)
            let follows = order < 0 || (order == 0 && code == 6 && previousReplica < replica)
            guard follows && code != 3 && code != 7 else {
                throw DocumentDecodingError(offset: start, reason: "entries not in canonical order")
            }
            sameTab = order == 0
            kindCount += 1
        } else {
            guard previousCode < code else {
                throw DocumentDecodingError(offset: start, reason: "entries not in canonical order")
            }
            kindCount = 1
            nextID = 0
        }
        guard kindCount <= Entry.Key.maxCount(code: UInt8(code)) else {
            throw DocumentDecodingError(offset: start, reason: "too many entries of one kind")
        }
        previousCode = code
        previousTab = tab
        previousReplica = replica
        if !sameTab { match = code == 3 || code == 7 ? nil : catalogIndex(of: tab) }
    }

    /// The catalog index of `tab`, or nil when the catalog lacks it. One forward walk per kind over
    /// the catalog's ids in byte order: within a kind the document's tabs only grow.
    private mutating func catalogIndex(of tab: UnsafeBufferPointer<UInt8>) -> Int? {
        let index = catalog.idIndex
        while nextID < index.count {
            let id = UnsafeBufferPointer(rebasing: ids[index.starts[nextID]..<index.starts[nextID + 1]])
            let order = IdentifierRules.compare(id, tab)
            if order > 0 { return nil }
            nextID += 1
            if order == 0 { return index.indices[nextID - 1] }
        }
        return nil
    }

    /// A position value: a first-format key (tag 1) or a place (tag 2).
    private mutating func position(tag: UInt8) throws(DocumentDecodingError) -> StoredPosition {
        if tag == 2 {
            let after = try reader.optionalTab()
            let next = try reader.optionalTab()
            let key = try positionKey()
            return .place(TabPlace(after: after, next: next, key: Array(key)))
        }
        let valueStart = reader.offset
        let key = try positionKey()
        guard key.count <= FractionalKey.maxLegacyLength else {
            reader.offset = valueStart
            throw reader.fail("invalid position key")
        }
        return .legacy(Array(key))
    }

    private mutating func positionKey() throws(DocumentDecodingError) -> UnsafeBufferPointer<UInt8> {
        let start = reader.offset
        let bytes = try reader.slice(max: TabPlace.maxKeyLength, "position key")
        guard let last = bytes.last, last != 0 else {
            reader.offset = start
            throw reader.fail("position key must be nonempty and not end in 0x00")
        }
        return bytes
    }

    /// A badge reset: an absolute count and the totals it had seen (with their sequences in tag 2).
    private mutating func badgeReset(tag: UInt8) throws(DocumentDecodingError) -> (
        count: Int64, seen: [ReplicaID: Int64], sequences: [ReplicaID: UInt64]
    ) {
        let valueStart = reader.offset
        let count = try reader.signed()
        let seenCount = try reader.count(max: Entry.maxReplicas, "badge reset replica count")
        if tag == 2 {
            guard seenCount > 0 else { throw reader.fail("a badge reset in format 2 must list its totals") }
        }
        var seen: [ReplicaID: Int64] = [:]
        var sequences: [ReplicaID: UInt64] = [:]
        seen.reserveCapacity(min(seenCount, reader.remaining / 9))
        var previous: ReplicaID?
        var inRange = true
        for _ in 0..<seenCount {
            let replica = ReplicaID(rawValue: try reader.fixed64())
            if let previous, !(previous < replica) { throw reader.fail("badge reset replicas not in order") }
            previous = replica
            let total = try reader.signed()
            inRange = inRange && total.magnitude <= UInt64(Entry.maxBadge)
            seen[replica] = total
            if tag == 2 {
                let sequence = try reader.varint()
                guard sequence > 0 else { throw reader.fail("badge reset with sequence 0") }
                sequences[replica] = sequence
            }
        }
        guard count >= 0 && count <= Entry.maxBadge && inRange else {
            reader.offset = valueStart
            throw reader.fail(inRange ? "badge count out of range" : "badge total out of range")
        }
        return (count, seen, sequences)
    }

    /// The clear: its context, and in tag 2 the badge totals it had seen (recorded for the badges).
    private mutating func clear(tag: UInt8) throws(DocumentDecodingError) -> VersionVector {
        let context = try reader.contextVector()
        guard tag == 2 else { return context }
        let valueStart = reader.offset
        let markCount = try reader.count(max: Entry.maxBadgeMarks, "clear's badge total count")
        guard markCount > 0 else { throw reader.fail("a clear's badge totals in format 2 must not be empty") }
        var previous: BadgeMark?
        var problem: String?
        for _ in 0..<markCount {
            let tab = try reader.tab()
            let replica = ReplicaID(rawValue: try reader.fixed64())
            let total = try reader.signed()
            let sequence = try reader.varint()
            let mark = BadgeMark(tab: tab, replica: replica, total: total, sequence: sequence)
            if let previous, !(previous < mark) { throw reader.fail("clear's badge totals not in order") }
            previous = mark
            if total.magnitude > UInt64(Entry.maxBadge) { problem = problem ?? "badge total out of range" }
            if sequence == 0 { problem = problem ?? "badge total with sequence 0" }
            if catalog.indexByTab[tab] != nil {
                bar.marks[tab, default: [:]][replica] = (total, sequence)
            }
        }
        if let problem {
            reader.offset = valueStart
            throw reader.fail(problem)
        }
        return context
    }
}

/// One entry's dot, and whether the entry is a tombstone.
private struct EntryDot {
    var dot: Dot
    var removed: Bool
}

extension ByteReader {
    /// A length-prefixed tab id's bytes, checked exactly as ``tab()`` checks them, without making a
    /// `String`: the bytes stay a slice of the buffer.
    mutating func tabBytes() throws(DocumentDecodingError) -> UnsafeBufferPointer<UInt8> {
        let start = offset
        let bytes = try slice(max: TabID.maxBytes, "tab id")
        if let problem = IdentifierRules.problem(in: bytes, maxBytes: TabID.maxBytes) {
            offset = start
            throw fail("tab id \(problem)")
        }
        for byte in bytes where byte >= 0x80 {
            // Only non-ASCII ids need the UTF-8 check, the one `tab()` makes.
            guard Self.text(bytes) != nil else {
                offset = start
                throw fail("tab id is not valid UTF-8")
            }
            break
        }
        return bytes
    }
}
