/// Goes from an encoded document straight to its ``Layout``, without building the document.
///
/// It checks exactly what `TabBarDocument(decoding:)` checks — every bound, the canonical order,
/// the caps, every value and the clear's tombstones — so it accepts and refuses the same bytes,
/// but it builds no `Entry` and allocates nothing on the heap but the `Layout` it returns: tab id
/// bytes are matched against the catalog's (``CatalogIDIndex``), what the layout needs of each
/// catalog tab is recorded as offsets into the bytes in a stack buffer (``CompactTabState``), and
/// the order is resolved on catalog indices (``CompactResolver``). `LayoutDecoderDifferentialPropertyTests`
/// feeds it and the full path the same valid and mutated documents: same decision, same layout.
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
        let table = catalog.idTable
        let result = table.bytes.withUnsafeBufferPointer { ids in
            withUnsafeTemporaryAllocation(of: CompactTabState.self, capacity: max(1, table.tabIDs.count)) {
                states -> Result<Layout, DocumentDecodingError> in
                states.initialize(repeating: CompactTabState())
                defer { states.deinitialize() }
                let decoder: LayoutDecoder
                do throws(DocumentDecodingError) {
                    decoder = try walk(bytes, table: table, ids: ids, states: states, spans: nil)
                } catch {
                    return .failure(error)
                }
                let resolver = CompactResolver(
                    table: table, ids: ids, bytes: bytes, states: UnsafeBufferPointer(states),
                    selection: decoder.selection, marks: decoder.marks)
                do throws(DocumentDecodingError) {
                    return .success(try resolver.layout())
                } catch {
                    return .failure(error)
                }
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

    /// Checks the encoded document in `bytes` exactly as ``layout(decoding:catalog:)`` does (so as
    /// `TabBarDocument(decoding:)` does) and notes where each of its entries starts in `spans`,
    /// which holds at least as many as the document's header counts (``DocumentScan/header(of:)``).
    /// `catalog` must have no renames; the layout itself is not resolved.
    static func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, catalog: Catalog,
        into spans: UnsafeMutableBufferPointer<EntrySpan>
    ) throws(DocumentDecodingError) -> DocumentScan {
        precondition(catalog.renames.isEmpty, "a scan matches ids without renames")
        let table = catalog.idTable
        let result = table.bytes.withUnsafeBufferPointer { ids in
            withUnsafeTemporaryAllocation(of: CompactTabState.self, capacity: max(1, table.tabIDs.count)) {
                states -> Result<DocumentScan, DocumentDecodingError> in
                states.initialize(repeating: CompactTabState())
                defer { states.deinitialize() }
                // The header was read once already, to size `spans`: it is not trusted here.
                guard let header = DocumentScan.header(of: bytes), header.count <= spans.count else {
                    return .failure(
                        DocumentDecodingError(offset: 0, reason: "entry count past the spans given"))
                }
                let decoder: LayoutDecoder
                do throws(DocumentDecodingError) {
                    decoder = try walk(
                        bytes, table: table, ids: ids, states: states, spans: spans.baseAddress)
                } catch {
                    return .failure(error)
                }
                return .success(
                    DocumentScan(
                        format: bytes[0], count: decoder.spanCount,
                        maxStamp: Stamp(rawValue: decoder.maxStamp),
                        secondForms: decoder.secondForms))
            }
        }
        return try result.get()
    }

    /// Checks `bytes` in full, recording what the layout needs of each catalog tab in `states` and,
    /// given `spans`, where each entry starts there (none left initialized when it throws). A
    /// document with a clear takes a second walk: tombstones exactly where the clear's context
    /// covers, which needs every entry's dot and the context read at the end.
    private static func walk(
        _ bytes: UnsafeBufferPointer<UInt8>, table: CatalogIDIndex, ids: UnsafeBufferPointer<UInt8>,
        states: UnsafeMutableBufferPointer<CompactTabState>, spans: UnsafeMutablePointer<EntrySpan>?
    ) throws(DocumentDecodingError) -> LayoutDecoder {
        var decoder = LayoutDecoder(bytes, table: table, ids: ids, states: states)
        decoder.spans = spans
        do throws(DocumentDecodingError) {
            try decoder.decode()
            if let context = decoder.context {
                var check = LayoutDecoder(bytes, table: table, ids: ids, states: states)
                check.checkedContext = context
                try check.decode()
            }
        } catch {
            if let spans, decoder.spanCount > 0 { spans.deinitialize(count: decoder.spanCount) }
            throw error
        }
        return decoder
    }

    private var reader: ByteReader
    /// The catalog's tables.
    private let table: CatalogIDIndex
    /// The catalog's id bytes in byte order (``CatalogIDIndex/bytes``).
    private let ids: UnsafeBufferPointer<UInt8>
    /// What the document says about each catalog tab, by catalog index.
    private let states: UnsafeMutableBufferPointer<CompactTabState>
    /// The key of the previous entry: kind, tab bytes (empty for kinds without a tab), replica.
    private var previousKind: EntryKind?
    private var previousTab = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var previousKey: UInt64 = 0
    private var previousReplica: UInt64 = 0
    private var kindCount = 0
    /// The next catalog id (in byte order) that a tab of the current kind may match, and the
    /// catalog index the current entry's tab matched (badge increments repeat a tab once per replica).
    private var nextID = 0
    private var match: Int?
    private var removedCount = 0
    /// The stored selection: its code and the tab's bytes.
    private(set) var selection = CompactSelection()
    /// Where the clear's badge totals start (at their count), or -1.
    private(set) var marks = -1
    /// The clear's context, once read.
    private(set) var context: VersionVector?
    /// In the second walk: the context every entry's dot is checked against.
    private var checkedContext: VersionVector?
    /// Where ``scan(_:catalog:into:)`` notes each entry (nil in a layout read), and how many it has.
    private var spans: UnsafeMutablePointer<EntrySpan>?
    private var spanCount = 0
    /// The newest stamp and the number of values in the second form seen so far.
    private var maxStamp: UInt64 = 0
    private var secondForms = 0

    private init(
        _ bytes: UnsafeBufferPointer<UInt8>, table: CatalogIDIndex, ids: UnsafeBufferPointer<UInt8>,
        states: UnsafeMutableBufferPointer<CompactTabState>
    ) {
        reader = ByteReader(bytes)
        self.table = table
        self.ids = ids
        self.states = states
    }

    private mutating func decode() throws(DocumentDecodingError) {
        let format = try reader.byte()
        guard format == TabBarDocument.formatVersion1 || format == TabBarDocument.formatVersion2 else {
            throw DocumentDecodingError(offset: 0, reason: DocumentRefusal.unknownFormat(format))
        }
        reader.allowsVersion2Values = format == TabBarDocument.formatVersion2
        let count = try reader.count(max: TabBarDocument.maxEntries, DocumentRefusal.entryCount)
        for index in 0..<count {
            try entry(isLast: index == count - 1)
        }
        guard reader.isAtEnd else { throw reader.fail(DocumentRefusal.trailingBytes) }
        if format == TabBarDocument.formatVersion2 && !reader.sawVersion2Value {
            throw DocumentDecodingError(offset: 0, reason: DocumentRefusal.formatTwoNotNeeded)
        }
        if context == nil && removedCount > 0 {
            throw DocumentDecodingError(
                offset: reader.buffer.count, reason: DocumentRefusal.removedWithoutClear)
        }
    }

    /// Reads one entry, checks it and its place in the order, and records what the layout needs.
    private mutating func entry(isLast: Bool) throws(DocumentDecodingError) {
        let start = reader.offset
        let code = try reader.byte()
        guard let kind = EntryKind(rawValue: code) else {
            reader.offset = start
            throw reader.fail(DocumentRefusal.unknownKind(code))
        }
        let tab = kind.hasTab ? try reader.tabBytes() : UnsafeBufferPointer(start: nil, count: 0)
        let replica = kind.hasReplica ? try reader.fixed64() : 0
        try checkOrder(kind: kind, tab: tab, replica: replica, start: start)
        let stamp = try reader.varint()  // last writer wins needs it, the layout does not
        if stamp > maxStamp { maxStamp = stamp }
        _ = try reader.fixed64()  // the origin
        let dotReplica = ReplicaID(rawValue: try reader.fixed64())
        let sequenceStart = reader.offset
        let sequence = try reader.varint()
        guard sequence > 0 else {
            reader.offset = sequenceStart
            throw reader.fail(DocumentRefusal.dotSequenceZero)
        }
        let tagByte = try reader.byte()
        guard let tag = ValueTag(rawValue: tagByte), tag != .secondForm || reader.allowsVersion2Values else {
            throw reader.fail(DocumentRefusal.unknownValueTag(tagByte))
        }
        let removed = tag == .removed
        if tag == .secondForm { secondForms += 1 }
        if let spans {
            let tabStart = tab.isEmpty ? 0 : tab.baseAddress! - reader.buffer.baseAddress!
            (spans + spanCount).initialize(
                to: EntrySpan(
                    start: start, kind: kind, tab: CompactRange(start: tabStart, count: tab.count),
                    replica: replica, dot: Dot(replica: dotReplica, sequence: sequence),
                    secondForm: tag == .secondForm))
            spanCount += 1
        }
        if let checkedContext, !isLast,
            checkedContext.contains(Dot(replica: dotReplica, sequence: sequence)) != removed
        {
            throw DocumentDecodingError(
                offset: reader.buffer.count, reason: "an entry disagrees with the clear's context")
        }
        if removed {
            guard kind != .cleared else { throw reader.fail(DocumentRefusal.clearRemoved) }
            removedCount += 1
            return
        }
        if tag == .secondForm { reader.sawVersion2Value = true }
        let index = match
        switch kind {
        case .position:
            try position(tag: tag, at: index)
        case .customizable, .hidden:
            guard tag == .present else { throw reader.fail(DocumentRefusal.noSecondForm) }
            let flag = try reader.byte()
            guard flag <= 1 else { throw reader.fail(DocumentRefusal.flagNotBoolean(flag)) }
            if let index {
                if kind == .customizable {
                    states[index].customizable = Int8(flag)
                } else {
                    states[index].hidden = Int8(flag)
                }
            }
        case .selection:
            guard tag == .present else { throw reader.fail(DocumentRefusal.noSecondForm) }
            switch SelectionCode(rawValue: try reader.byte()) {
            case .noTab: selection = CompactSelection(code: .noTab)
            case .more: selection = CompactSelection(code: .more)
            case .tab:
                let bytes = try reader.tabBytes()
                selection = CompactSelection(code: .tab, tab: bytes)
            case nil: throw reader.fail(DocumentRefusal.unknownSelection)
            }
        case .badgeText:
            guard tag == .present else { throw reader.fail(DocumentRefusal.noSecondForm) }
            switch BadgeTextCode(rawValue: try reader.byte()) {
            case .noText: break
            case .text:
                let textStart = reader.offset
                let bytes = try reader.slice(max: Entry.maxBadgeTextBytes, DocumentRefusal.badgeText)
                guard ByteReader.isUTF8(bytes) else {
                    reader.offset = textStart
                    throw reader.fail(DocumentRefusal.notUTF8(DocumentRefusal.badgeText))
                }
                if let index { states[index].text = textStart }
            case nil: throw reader.fail(DocumentRefusal.unknownBadgeText)
            }
        case .badgeReset:
            let valueStart = reader.offset
            try badgeReset(tag: tag)
            if let index {
                states[index].reset = valueStart
                states[index].resetTag = tag
            }
        case .badgeIncrements:
            guard tag == .present else { throw reader.fail(DocumentRefusal.noSecondForm) }
            let valueStart = reader.offset
            let total = try reader.signed()
            guard total.magnitude <= UInt64(Entry.maxBadge) else {
                reader.offset = valueStart
                throw reader.fail(DocumentRefusal.badgeTotalOutOfRange)
            }
            if let index, checkedContext == nil {
                if states[index].totalsCount == 0 { states[index].totals = start }
                states[index].totalsCount += 1
            }
        case .cleared:
            try clear(tag: tag)
        }
    }

    /// Checks that the key (kind, tab bytes, replica) follows the previous one in the canonical
    /// order and that its kind stays within its cap, as the full decoder does with `Entry.Key`'s `<`.
    private mutating func checkOrder(
        kind: EntryKind, tab: UnsafeBufferPointer<UInt8>, replica: UInt64, start: Int
    )
        throws(DocumentDecodingError)
    {
        var sameTab = false
        let key = IdentifierRules.prefixKey(tab)
        if kind == previousKind {
            let order = IdentifierRules.compare(previousTab, key: previousKey, tab, key: key)
            let follows = order < 0 || (order == 0 && kind.hasReplica && previousReplica < replica)
            guard follows && kind.hasTab else {
                throw DocumentDecodingError(offset: start, reason: DocumentRefusal.notInCanonicalOrder)
            }
            sameTab = order == 0
            kindCount += 1
        } else {
            guard previousKind.map({ $0 < kind }) ?? true else {
                throw DocumentDecodingError(offset: start, reason: DocumentRefusal.notInCanonicalOrder)
            }
            kindCount = 1
            nextID = 0
        }
        guard kindCount <= kind.maxCount else {
            throw DocumentDecodingError(offset: start, reason: DocumentRefusal.tooManyOfOneKind)
        }
        previousKind = kind
        previousTab = tab
        previousKey = key
        previousReplica = replica
        if !sameTab { match = kind.hasTab ? catalogIndex(of: tab, key: key) : nil }
    }

    /// The catalog index of `tab` (whose prefix key is `key`), or nil when the catalog lacks it.
    /// One forward walk per kind over the catalog's ids in byte order: within a kind the
    /// document's tabs only grow.
    private mutating func catalogIndex(of tab: UnsafeBufferPointer<UInt8>, key: UInt64) -> Int? {
        let index = table
        while nextID < index.count {
            let order = index.compare(rank: nextID, in: ids, with: tab, key: key)
            if order > 0 { return nil }
            nextID += 1
            if order == 0 { return index.indices[nextID - 1] }
        }
        return nil
    }

    /// A position value, a first-format key (tag 1) or a place (tag 2), recorded for the catalog
    /// tab at `index`.
    private mutating func position(tag: ValueTag, at index: Int?) throws(DocumentDecodingError) {
        if tag == .secondForm {
            let after = try optionalTab()
            let next = try optionalTab()
            let key = try positionKey()
            if let index {
                states[index].position = .place
                states[index].after = after
                states[index].next = next
                states[index].key = key
            }
            return
        }
        let valueStart = reader.offset
        let key = try positionKey()
        guard key.count <= FractionalKey.maxFirstFormatLength else {
            reader.offset = valueStart
            throw reader.fail(DocumentRefusal.invalidPositionKey)
        }
        if let index {
            states[index].position = .firstFormat
            states[index].key = key
        }
    }

    /// An optional tab id of a place, as the catalog index of its tab: `CompactTabState.none` when
    /// absent, `CompactTabState.notInCatalog` when the catalog lacks it.
    private mutating func optionalTab() throws(DocumentDecodingError) -> Int {
        switch try reader.byte() {
        case 0: return CompactTabState.none
        case 1:
            let bytes = try reader.tabBytes()
            return table.catalogIndex(of: bytes, in: ids) ?? CompactTabState.notInCatalog
        default: throw reader.fail(DocumentRefusal.optionalTabMarker)
        }
    }

    private mutating func positionKey() throws(DocumentDecodingError) -> CompactRange {
        let start = reader.offset
        let bytes: UnsafeBufferPointer<UInt8>
        if let short = reader.shortSlice(max: TabPlace.maxKeyLength) {
            bytes = short
        } else {
            bytes = try reader.slice(max: TabPlace.maxKeyLength, DocumentRefusal.positionKey)
        }
        guard let last = bytes.last, last != 0 else {
            reader.offset = start
            throw reader.fail(DocumentRefusal.badPositionKey)
        }
        return CompactRange(start: reader.offset - bytes.count, count: bytes.count)
    }

    /// A badge reset, checked: an absolute count and the totals it had seen (with their sequences
    /// in tag 2). ``CompactResolver`` reads it again where it needs it.
    private mutating func badgeReset(tag: ValueTag) throws(DocumentDecodingError) {
        let valueStart = reader.offset
        let count = try reader.signed()
        let seenCount = try reader.count(max: Entry.maxReplicas, DocumentRefusal.badgeResetReplicaCount)
        if tag == .secondForm {
            guard seenCount > 0 else { throw reader.fail(DocumentRefusal.badgeResetWithoutTotals) }
        }
        var previous: UInt64?
        var inRange = true
        for _ in 0..<seenCount {
            let replica = try reader.fixed64()
            if let previous, !(previous < replica) {
                throw reader.fail(DocumentRefusal.badgeResetReplicasNotInOrder)
            }
            previous = replica
            let total = try reader.signed()
            inRange = inRange && total.magnitude <= UInt64(Entry.maxBadge)
            if tag == .secondForm {
                let sequence = try reader.varint()
                guard sequence > 0 else { throw reader.fail(DocumentRefusal.badgeResetSequenceZero) }
            }
        }
        guard count >= 0 && count <= Entry.maxBadge && inRange else {
            reader.offset = valueStart
            throw reader.fail(
                inRange ? DocumentRefusal.badgeCountOutOfRange : DocumentRefusal.badgeTotalOutOfRange)
        }
    }

    /// The clear: its context, and in tag 2 the badge totals it had seen (checked here, read again
    /// by ``CompactResolver``).
    private mutating func clear(tag: ValueTag) throws(DocumentDecodingError) {
        context = try reader.contextVector()
        guard tag == .secondForm else { return }
        let valueStart = reader.offset
        marks = valueStart
        let markCount = try reader.count(max: Entry.maxBadgeMarks, DocumentRefusal.badgeTotalCount)
        guard markCount > 0 else { throw reader.fail(DocumentRefusal.badgeTotalsEmpty) }
        var previousTab = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        var previousReplica: UInt64 = 0
        var problem: String?
        for number in 0..<markCount {
            let tab = try reader.tabBytes()
            let replica = try reader.fixed64()
            let total = try reader.signed()
            let sequence = try reader.varint()
            if number > 0 {
                let order = IdentifierRules.compare(previousTab, tab)
                guard order < 0 || (order == 0 && previousReplica < replica) else {
                    throw reader.fail(DocumentRefusal.badgeTotalsNotInOrder)
                }
            }
            previousTab = tab
            previousReplica = replica
            if total.magnitude > UInt64(Entry.maxBadge) {
                problem = problem ?? DocumentRefusal.badgeTotalOutOfRange
            }
            if sequence == 0 { problem = problem ?? DocumentRefusal.badgeTotalSequenceZero }
        }
        if let problem {
            reader.offset = valueStart
            throw reader.fail(problem)
        }
    }
}

extension ByteReader {
    /// A length-prefixed tab id's bytes, checked exactly as ``tab()`` checks them, without making a
    /// `String`: the bytes stay a slice of the buffer.
    mutating func tabBytes() throws(DocumentDecodingError) -> UnsafeBufferPointer<UInt8> {
        let start = offset
        let bytes: UnsafeBufferPointer<UInt8>
        if let short = shortSlice(max: TabID.maxBytes) {
            bytes = short
        } else {
            bytes = try slice(max: TabID.maxBytes, DocumentRefusal.tabID)
        }
        // Printable ASCII (0x20–0x7E), the usual id, breaks no rule and is valid UTF-8: one pass.
        var printable = !bytes.isEmpty
        for byte in bytes where byte &- 0x20 >= 0x5F {
            printable = false
            break
        }
        if printable { return bytes }
        if let problem = IdentifierRules.problem(in: bytes, maxBytes: TabID.maxBytes) {
            offset = start
            throw fail(DocumentRefusal.breaksIdentifierRule(DocumentRefusal.tabID, problem))
        }
        guard Self.isUTF8(bytes) else {
            offset = start
            throw fail(DocumentRefusal.notUTF8(DocumentRefusal.tabID))
        }
        return bytes
    }

    /// Whether `bytes` are valid UTF-8, as ``text(_:)`` decides, making a `String` only for
    /// non-ASCII bytes.
    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 {
            return text(bytes) != nil
        }
        return true
    }
}

/// Where one entry of an encoded document starts, and what ``SplicedEdit`` needs of its key and
/// its dot, as ``LayoutDecoder/scan(_:catalog:into:)`` notes it.
struct EntrySpan {
    var start: Int
    var kind: EntryKind
    /// The tab id's bytes (none for the selection and the clear).
    var tab: CompactRange
    /// The key's replica (badge increments), else 0.
    var replica: UInt64
    var dot: Dot
    /// Whether the value is in the second form (format 2).
    var secondForm: Bool
}

/// What ``LayoutDecoder/scan(_:catalog:into:)`` found of a whole document.
struct DocumentScan {
    /// The format byte (1 or 2) and the number of entries.
    var format: UInt8
    var count: Int
    /// The newest stamp of any entry.
    var maxStamp: Stamp
    /// How many values are in the second form.
    var secondForms: Int

    /// The format byte and the entry count a document's bytes begin with, unchecked beyond the
    /// count's cap; nil when they do not read.
    static func header(of bytes: UnsafeBufferPointer<UInt8>) -> (format: UInt8, count: Int, end: Int)? {
        var reader = ByteReader(bytes)
        guard let format = try? reader.byte(),
            let count = try? reader.count(max: TabBarDocument.maxEntries, DocumentRefusal.entryCount)
        else { return nil }
        return (format, count, reader.offset)
    }
}
