/// A document's ``CompactLayout`` as a record of its own (schema 4's `l` ‖ bar beside the
/// document's `d` ‖ bar): a launch read takes it instead of decoding and resolving the document.
///
/// A layout is a function of the document and the catalog alone, so a record names the catalog
/// it was resolved against by ``Catalog/fingerprint`` and is read only with a catalog of that
/// fingerprint; every write of the document writes its record again or deletes it, so a record
/// that is present is its document's layout. The bytes, one after another:
///
/// | bytes | what |
/// |---|---|
/// | 1 | format, ``storedFormat`` (a change to how layouts resolve takes a new one) |
/// | 8 | the catalog's fingerprint, little-endian |
/// | 2 × 4 | shown, hidden, badge and text counts, little-endian |
/// | 2 | the selection: 0 none, 1 More, 2 a tab; then that tab's catalog index (else 0) |
/// | … | ``CompactLayout``'s packed bytes |
///
/// The reader checks every count, index, flag and length against the catalog (each catalog tab
/// shown or hidden exactly once, badges and texts only on shown tabs, at most once each, badge
/// counts above zero, texts at most 64 bytes, nothing left over) and returns nil for anything
/// else: the store then reads the document, as it would without the record. Its twin is that
/// read: `StoredLayoutDifferentialPropertyTests`.
///
/// ```swift
/// let record = compact.storedRecord(fingerprint: catalog.fingerprint)
/// let again = CompactLayout(storedRecord: record, catalog: catalog)
/// ```
extension CompactLayout {
    /// The format byte of stored layout records.
    static let storedFormat: UInt8 = 1
    /// The bytes before the packed ones.
    static let storedHeader = 19

    /// The catalog fingerprint a record of at least ``storedHeader`` bytes names.
    static func storedFingerprint(_ record: UnsafeRawBufferPointer) -> UInt64 {
        UInt64(littleEndian: record.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
    }

    /// The number of packed bytes.
    var packedCount: Int {
        withPacked { packed in
            var at = textsStart
            for _ in 0..<textCount { at += 2 + Int(packed[at + 1]) }
            return at
        }
    }

    /// This layout as a stored record naming the catalog of `fingerprint`, written in one array
    /// of the exact size (an edit makes one).
    func storedRecord(fingerprint: UInt64) -> [UInt8] {
        let packedCount = packedCount
        return [UInt8](unsafeUninitializedCapacity: Self.storedHeader + packedCount) { buffer, made in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw.storeBytes(of: Self.storedFormat, toByteOffset: 0, as: UInt8.self)
            raw.storeBytes(of: fingerprint.littleEndian, toByteOffset: 1, as: UInt64.self)
            raw.storeBytes(of: UInt16(shownCount).littleEndian, toByteOffset: 9, as: UInt16.self)
            raw.storeBytes(of: UInt16(hiddenCount).littleEndian, toByteOffset: 11, as: UInt16.self)
            raw.storeBytes(of: UInt16(badgeCount).littleEndian, toByteOffset: 13, as: UInt16.self)
            raw.storeBytes(of: UInt16(textCount).littleEndian, toByteOffset: 15, as: UInt16.self)
            raw.storeBytes(of: selected.kind, toByteOffset: 17, as: UInt8.self)
            raw.storeBytes(of: selected.index, toByteOffset: 18, as: UInt8.self)
            withPacked { packed in
                UnsafeMutableRawBufferPointer(rebasing: raw[Self.storedHeader...])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: packed[..<packedCount]))
            }
            made = Self.storedHeader + packedCount
        }
    }

    /// The layout a stored record holds, if it was resolved against `catalog` and is well formed.
    init?(storedRecord record: UnsafeRawBufferPointer, catalog: Catalog) {
        let header = Self.storedHeader
        guard record.count >= header, record[0] == Self.storedFormat,
            Self.storedFingerprint(record) == catalog.fingerprint
        else { return nil }
        func count(_ at: Int) -> Int {
            Int(UInt16(littleEndian: record.loadUnaligned(fromByteOffset: 9 + 2 * at, as: UInt16.self)))
        }
        let tabs = catalog.idTable.tabIDs
        let (shownCount, hiddenCount, badgeCount, textCount) = (count(0), count(1), count(2), count(3))
        guard shownCount + hiddenCount == tabs.count, badgeCount <= shownCount, textCount <= shownCount else {
            return nil
        }
        let packed = UnsafeRawBufferPointer(rebasing: record[header...])
        var fixed = 2 * shownCount + hiddenCount + Self.badgeBytes * badgeCount
        guard fixed <= packed.count else { return nil }
        // Each catalog tab once among shown and hidden; the shown ones again for badges and texts.
        var placed = TabSet()
        var shown = TabSet()
        for slot in 0..<(shownCount + hiddenCount) {
            let index = Int(packed[slot < shownCount ? slot : shownCount + slot])
            guard index < tabs.count, placed.insert(index) else { return nil }
            if slot < shownCount { _ = shown.insert(index) }
        }
        for slot in 0..<shownCount where packed[shownCount + slot] > 1 { return nil }
        var badged = TabSet()
        for badge in 0..<badgeCount {
            let at = 2 * shownCount + hiddenCount + Self.badgeBytes * badge
            let index = Int(packed[at])
            guard shown.contains(index), badged.insert(index),
                Int64(littleEndian: packed.loadUnaligned(fromByteOffset: at + 1, as: Int64.self)) > 0
            else { return nil }
        }
        var texted = TabSet()
        for _ in 0..<textCount {
            guard fixed + 2 <= packed.count else { return nil }
            let index = Int(packed[fixed])
            let length = Int(packed[fixed + 1])
            guard shown.contains(index), texted.insert(index), length <= Entry.maxBadgeTextBytes,
                fixed + 2 + length <= packed.count
            else { return nil }
            fixed += 2 + length
        }
        guard fixed == packed.count else { return nil }
        let selected: Selected
        switch (record[17], Int(record[18])) {
        case (0, 0): selected = .none
        case (1, 0): selected = .more
        case (2, let index) where shown.contains(index): selected = .tab(index)
        default: return nil
        }
        self.init(
            tabs: tabs, shownCount: shownCount, hiddenCount: hiddenCount, badgeCount: badgeCount,
            textCount: textCount, selected: selected, size: packed.count
        ) { buffer in
            buffer.copyMemory(from: packed)
            return packed.count
        }
    }
}

/// A set of catalog indices (at most 256) in four words.
private struct TabSet {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    func contains(_ index: Int) -> Bool {
        withUnsafeBytes(of: words) { $0.load(fromByteOffset: 8 * (index >> 6), as: UInt64.self) }
            & (1 << UInt64(index & 63)) != 0
    }

    /// Adds `index`; false if it was there.
    mutating func insert(_ index: Int) -> Bool {
        if contains(index) { return false }
        withUnsafeMutableBytes(of: &words) { raw in
            let word = raw.load(fromByteOffset: 8 * (index >> 6), as: UInt64.self)
            raw.storeBytes(
                of: word | 1 << UInt64(index & 63), toByteOffset: 8 * (index >> 6), as: UInt64.self)
        }
        return true
    }
}
