/// Narrow edits applied to a document's encoded bytes: the fast twin of decoding the whole
/// document, applying the edits and encoding it again, for the edits that read and write only the
/// entries of the tab they name (a badge count, a badge text, a hidden or customizable flag).
///
/// The bytes are checked exactly as `TabBarDocument(decoding:)` checks them (``LayoutDecoder``'s
/// walk, noting where each entry starts), but only the named tabs' entries and the clear are
/// decoded; the edits apply to that partial document by the same code as to the whole one (what
/// they read of a document is exactly those entries); the entries they wrote are encoded in place
/// of the ones they replace, every other entry's bytes copied as they are. The dots that left the
/// document and the new ones come out of the same walk. `SplicedEditDifferentialPropertyTests`
/// holds it to the full path: the same bytes, replica and error over random valid documents and
/// edits, and no splice at all of bytes the full decoder refuses.
///
/// ```swift
/// switch try SplicedEdit.apply([.addToBadge(inbox, 1)], to: bytes, catalog: catalog, by: &replica) {
/// case .spliced(let bytes, let removed, let added)?: store(bytes, removed, added)
/// case .unchanged?: break
/// case nil: fullPath()  // not a narrow edit, a catalog with renames, or bytes that do not decode
/// }
/// ```
enum SplicedEdit {
    /// What the edits made of the document.
    enum Outcome: Equatable {
        /// They wrote nothing (a badge cleared that was not set, say).
        case unchanged
        /// The new document's bytes (`encoded()` of the full path's document, byte for byte), the
        /// dots no entry holds any more and the dots new to the document, each sorted.
        case spliced(bytes: [UInt8], removed: [Dot], added: [Dot])
    }

    /// The tabs `edits` name, when every one of them reads and writes only its tab's entries (and
    /// the clear's badge marks); nil otherwise.
    static func tabs(of edits: [TabBarEdit]) -> [TabID]? {
        guard !edits.isEmpty else { return nil }
        var tabs: [TabID] = []
        for edit in edits {
            let tab: TabID
            switch edit {
            case .setCustomizableFlag(let id, _), .setHidden(let id, _), .setBadge(let id, _),
                .addToBadge(let id, _), .clearBadge(let id), .setBadgeText(let id, _):
                tab = id
            case .move, .reorder, .setCustomizable, .select, .reset:
                return nil
            }
            if !tabs.contains(tab) { tabs.append(tab) }
        }
        return tabs
    }

    /// Applies `edits`, in order and all or nothing, to the encoded document `bytes` as `replica`,
    /// resolving them against `catalog`. Throws the error the full path throws (the replica then
    /// unchanged); nil when this path does not apply: an edit that is not narrow, a catalog with
    /// renames (an old id's entries count for the new one), or bytes the full decoder refuses.
    static func apply(
        _ edits: [TabBarEdit], to bytes: UnsafeBufferPointer<UInt8>, catalog: Catalog,
        by replica: inout Replica
    ) throws(EditError) -> Outcome? {
        guard catalog.renames.isEmpty, let tabs = tabs(of: edits), let header = DocumentScan.header(of: bytes)
        else { return nil }
        let result = withUnsafeTemporaryAllocation(of: EntrySpan.self, capacity: max(1, header.count)) {
            spans -> Result<Outcome?, EditError> in
            guard let scan = try? LayoutDecoder.scan(bytes, catalog: catalog, into: spans) else {
                return .success(nil)
            }
            let splice = Splice(
                bytes: bytes, entriesStart: header.end, scan: scan,
                spans: UnsafeBufferPointer(rebasing: spans[..<scan.count]))
            do throws(EditError) {
                return .success(try splice.apply(edits, tabs: tabs, catalog: catalog, by: &replica))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

extension SplicedEdit {
    /// `incoming` (a delta a peer sent, decoded) merged into the encoded document `bytes`: the fast
    /// twin of decoding the document, `merge(_:)` and encoding the result, which only the entries
    /// of the keys `incoming` holds (and the clear) are decoded for; every other entry's bytes are
    /// copied as they are. `.spliced` carries `encoded()` of the full path's document, byte for
    /// byte, and the dots that left the document and came; `.unchanged` when the merge changes
    /// nothing. Nil when this path does not apply: `incoming` holds a clear other than the
    /// document's (a grown context may turn entries of any key into tombstones; a delta of a
    /// document with a clear always carries it), or `bytes` do not decode (the full path reports
    /// them).
    ///
    /// ```swift
    /// switch SplicedEdit.merge(delta, into: stored) {
    /// case .spliced(let bytes, let removed, let added)?: store(bytes, removed, added)
    /// case .unchanged?: break
    /// case nil: fullPath()
    /// }
    /// ```
    static func merge(_ incoming: TabBarDocument, into bytes: UnsafeBufferPointer<UInt8>) -> Outcome? {
        guard let header = DocumentScan.header(of: bytes) else { return nil }
        return withUnsafeTemporaryAllocation(of: EntrySpan.self, capacity: max(1, header.count)) {
            spans -> Outcome? in
            // The scan checks the bytes as the full decoder does; the catalog only names tabs for
            // a layout, which a merge does not resolve.
            guard let scan = try? LayoutDecoder.scan(bytes, catalog: .empty, into: spans) else { return nil }
            let splice = Splice(
                bytes: bytes, entriesStart: header.end, scan: scan,
                spans: UnsafeBufferPointer(rebasing: spans[..<scan.count]))
            return splice.merge(incoming)
        }
    }

    /// The part of the encoded document `bytes` a peer that has seen `vector` lacks: the fast twin
    /// of decoding the document and taking `TabKeepStore.part(of:after:)`, which only the entries
    /// it returns are decoded for. Like it, the part holds the document's clear when the vector
    /// lacks the clear's dot, and otherwise gains it when the part with it is a valid document
    /// (it is not where the bytes hold what only `verify` reports, such as one dot in two
    /// entries). Nil when `bytes` do not decode (the full path reports them).
    static func part(of bytes: UnsafeBufferPointer<UInt8>, after vector: VersionVector) -> TabBarDocument? {
        guard let header = DocumentScan.header(of: bytes) else { return nil }
        return withUnsafeTemporaryAllocation(of: EntrySpan.self, capacity: max(1, header.count)) {
            spans -> TabBarDocument? in
            guard let scan = try? LayoutDecoder.scan(bytes, catalog: .empty, into: spans) else { return nil }
            var reader = ByteReader(bytes)
            reader.allowsVersion2Values = scan.format == TabBarDocument.formatVersion2
            var entries: [Entry] = []
            var coveredClear: Entry?
            for index in 0..<scan.count {
                let span = spans[index]
                let covered = vector.contains(span.dot)
                guard !covered || span.kind == .cleared else { continue }
                reader.offset = span.start
                // Checked by the scan already: a refusal here is a bug, and the full path decides.
                guard let entry = try? reader.entry() else { return nil }
                if covered { coveredClear = entry } else { entries.append(entry) }
            }
            // A clear the peer has seen still goes: its context covers what the part may lack.
            guard let clear = coveredClear else { return TabBarDocument(sorted: entries) }
            return (try? TabBarDocument(entries: entries + [clear])) ?? TabBarDocument(sorted: entries)
        }
    }

    /// Whether a spliced merge agrees with the full path: the stored bytes decoded, `incoming`
    /// merged in and encoded give the same bytes (or the same document, for `.unchanged`), and the
    /// dots it says left and came are the difference of the two documents' dots. Debug builds
    /// check every spliced merge a store makes with it.
    static func mergeAgrees(
        _ stored: UnsafeBufferPointer<UInt8>, _ incoming: TabBarDocument, _ outcome: Outcome?
    ) -> Bool {
        guard let outcome else { return true }
        guard let before = try? TabBarDocument(decoding: stored) else { return false }
        let after = before.merging(incoming)
        switch outcome {
        case .unchanged: return after == before
        case .spliced(let bytes, let removed, let added):
            return after != before && bytes == after.encoded()
                && dotsChanged(from: before, to: after) == (removed, added)
        }
    }

    /// Whether a splice agrees with the documents it went between: the new bytes decode, and the
    /// dots it says left and came are the difference of the two documents' dots. Debug builds
    /// check every splice a store makes with it, so every test that edits compares the two.
    static func agrees(_ old: UnsafeBufferPointer<UInt8>, _ outcome: Outcome?) -> Bool {
        guard case .spliced(let bytes, let removed, let added)? = outcome else { return true }
        guard let before = try? TabBarDocument(decoding: old),
            let after = try? TabBarDocument(decoding: bytes)
        else { return false }
        return dotsChanged(from: before, to: after) == (removed, added)
    }

    /// The dots of `before` that `after` no longer holds and the ones new to it, each sorted: what
    /// a splice between the two must say left and came.
    static func dotsChanged(from before: TabBarDocument, to after: TabBarDocument) -> ([Dot], [Dot]) {
        let (was, now) = (Set(before.dots), Set(after.dots))
        return (was.subtracting(now).sorted(), now.subtracting(was).sorted())
    }
}

/// One document's bytes and their entries' spans, as checked by ``LayoutDecoder/scan(_:catalog:into:)``.
private struct Splice {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where the first entry starts (after the format byte and the count).
    let entriesStart: Int
    let scan: DocumentScan
    let spans: UnsafeBufferPointer<EntrySpan>

    func apply(_ edits: [TabBarEdit], tabs: [TabID], catalog: Catalog, by replica: inout Replica)
        throws(EditError) -> SplicedEdit.Outcome?
    {
        // The entries the edits read or write: the named tabs' (of every kind) and the clear.
        var indices: [Int] = []
        var entries: [Entry] = []
        var reader = ByteReader(bytes)
        reader.allowsVersion2Values = scan.format == TabBarDocument.formatVersion2
        for index in spans.indices where isRead(spans[index], tabs: tabs) {
            reader.offset = spans[index].start
            // Checked by the scan already: a refusal here is a bug, and the full path decides.
            guard let entry = try? reader.entry() else { return nil }
            indices.append(index)
            entries.append(entry)
        }
        let before = TabBarDocument(sorted: entries)
        var after = before
        var writer = replica
        // The whole document's newest stamp, which the partial one may lack.
        writer.clock.observe(scan.maxStamp)
        for edit in edits { try after.apply(edit, catalog: catalog, by: &writer) }
        guard let outcome = outcome(from: before, to: after, at: indices) else { return nil }
        replica = writer
        return outcome
    }

    /// `incoming` merged into the document: the entries of the keys it holds and the clear decoded
    /// and merged by `TabBarDocument.merge`, the rest copied. Nil when `incoming` holds a clear
    /// other than the document's (a grown context may turn entries of any key into tombstones).
    func merge(_ incoming: TabBarDocument) -> SplicedEdit.Outcome? {
        var indices: [Int] = []
        var entries: [Entry] = []
        var reader = ByteReader(bytes)
        reader.allowsVersion2Values = scan.format == TabBarDocument.formatVersion2
        var next = 0  // the first incoming entry whose key no span before this one matched
        for index in spans.indices {
            let span = spans[index]
            while next < incoming.storage.count && !precedes(span, incoming.storage[next].key)
                && !matches(span, incoming.storage[next].key)
            {
                next += 1
            }
            // Both lists are in key order: a span is read when its key is the next incoming one's,
            // or when it is the clear (whose context covers incoming entries too).
            let read =
                span.kind == .cleared
                || (next < incoming.storage.count && matches(span, incoming.storage[next].key))
            guard read else { continue }
            reader.offset = span.start
            // Checked by the scan already: a refusal here is a bug, and the full path decides.
            guard let entry = try? reader.entry() else { return nil }
            indices.append(index)
            entries.append(entry)
        }
        // A delta of a document with a clear carries the clear: the same one changes no context.
        if let clear = incoming.storage.last, clear.key == .cleared, entries.last != clear { return nil }
        let before = TabBarDocument(sorted: entries)
        return outcome(from: before, to: before.merging(incoming), at: indices)
    }

    /// What became of the partial document `before` (the entries of the spans at `indices`) as
    /// `after`: the entries written, each in place of the entry of its key or new, spliced into
    /// the bytes. Nil when an entry went (neither an edit nor a merge takes one away).
    private func outcome(from before: TabBarDocument, to after: TabBarDocument, at indices: [Int])
        -> SplicedEdit.Outcome?
    {
        var changes: [(entry: Entry, replacing: Int?)] = []
        var old = 0
        for entry in after.storage {
            if old < before.storage.count && before.storage[old].key == entry.key {
                if before.storage[old] != entry { changes.append((entry, indices[old])) }
                old += 1
            } else {
                guard old == before.storage.count || entry.key < before.storage[old].key else { return nil }
                changes.append((entry, nil))
            }
        }
        guard old == before.storage.count else { return nil }
        if changes.isEmpty { return .unchanged }
        return .spliced(bytes: spliced(changes), removed: removedDots(changes), added: addedDots(changes))
    }

    /// Whether the partial document holds the entry of `span`: the clear, or an entry of a named tab.
    private func isRead(_ span: EntrySpan, tabs: [TabID]) -> Bool {
        if span.kind == .cleared { return true }
        guard span.kind.hasTab else { return false }
        let tab = tabBytes(span)
        for id in tabs where Self.compare(tab, id) == 0 { return true }
        return false
    }

    private func tabBytes(_ span: EntrySpan) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[span.tab.start..<(span.tab.start + span.tab.count)])
    }

    /// The order of a span's tab bytes against a tab id, as `Entry.Key` orders tabs.
    private static func compare(_ bytes: UnsafeBufferPointer<UInt8>, _ id: TabID) -> Int {
        var id = id.rawValue
        return id.withUTF8 { IdentifierRules.compare(bytes, $0) }
    }

    /// Whether the key of `span` sorts before `key`, by the canonical order (kind, tab, replica).
    private func precedes(_ span: EntrySpan, _ key: Entry.Key) -> Bool {
        let kind = key.kind
        if span.kind != kind { return span.kind < kind }
        guard let tab = key.tab else { return false }
        let order = Self.compare(tabBytes(span), tab)
        if order != 0 { return order < 0 }
        if case .badgeIncrements(_, let replica) = key { return span.replica < replica.rawValue }
        return false
    }

    /// Whether the key of `span` is `key`.
    private func matches(_ span: EntrySpan, _ key: Entry.Key) -> Bool {
        guard span.kind == key.kind else { return false }
        guard let tab = key.tab else { return true }
        guard Self.compare(tabBytes(span), tab) == 0 else { return false }
        if case .badgeIncrements(_, let replica) = key { return span.replica == replica.rawValue }
        return true
    }

    /// Where the entry of index `index` starts; the end of the bytes past the last.
    private func start(_ index: Int) -> Int { index < spans.count ? spans[index].start : bytes.count }

    /// The span index a new entry of `key` goes before.
    private func insertion(of key: Entry.Key) -> Int {
        var low = 0
        var high = spans.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(spans[middle], key) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The document with `changes` (in key order) written in: `encoded()` of the full path's one.
    private func spliced(_ changes: [(entry: Entry, replacing: Int?)]) -> [UInt8] {
        var secondForms = scan.secondForms
        var inserted = 0
        for change in changes {
            if let replaced = change.replacing {
                if spans[replaced].secondForm { secondForms -= 1 }
            } else {
                inserted += 1
            }
            if ByteWriter.tag(of: change.entry.value) == .secondForm { secondForms += 1 }
        }
        var writer = ByteWriter()
        writer.reserveCapacity(bytes.count + 64 * changes.count)
        writer.byte(secondForms > 0 ? TabBarDocument.formatVersion2 : TabBarDocument.formatVersion1)
        writer.varint(UInt64(spans.count + inserted))
        var copied = entriesStart
        for change in changes {
            let at = change.replacing ?? insertion(of: change.entry.key)
            writer.raw(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[copied..<start(at)])))
            writer.entry(change.entry)
            copied = change.replacing.map { start($0 + 1) } ?? start(at)
        }
        writer.raw(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[copied..<bytes.count])))
        return writer.finish()
    }

    /// The dots of replaced entries that no entry of the new document holds, sorted.
    private func removedDots(_ changes: [(entry: Entry, replacing: Int?)]) -> [Dot] {
        var removed: [Dot] = []
        for change in changes {
            guard let replaced = change.replacing else { continue }
            let dot = spans[replaced].dot
            let kept = spans.indices.contains { index in
                spans[index].dot == dot && !changes.contains { $0.replacing == index }
            }
            if !kept && !changes.contains(where: { $0.entry.dot == dot }) && !removed.contains(dot) {
                removed.append(dot)
            }
        }
        return removed.sorted()
    }

    /// The dots of written entries that no entry of the old document held, sorted.
    private func addedDots(_ changes: [(entry: Entry, replacing: Int?)]) -> [Dot] {
        var added: [Dot] = []
        for change in changes {
            let dot = change.entry.dot
            if !spans.contains(where: { $0.dot == dot }) && !added.contains(dot) { added.append(dot) }
        }
        return added.sorted()
    }
}
