import Foundation
import LMDBKit

/// Documents: loading and saving them with their dots, and the public reads of layouts,
/// documents, profiles and bars.
extension TabKeepStore {
    // MARK: Documents

    /// Whether the bytes stored under `key` are `encoded` exactly (so they decode to the document
    /// `encoded` came from: the encoding round-trips), read without decoding them; nil when
    /// nothing is stored under `key`.
    func storesBytes(
        _ txn: borrowing Transaction, _ key: DocumentKey, _ encoded: [UInt8],
        storedAs keyBytes: [UInt8]? = nil
    ) throws -> Bool? {
        try txn.withValue(documents, key: keyBytes ?? spaces.documentKey(key)) { bytes in
            guard let bytes else { return nil }
            // One memcmp, not a generic element-by-element walk (8k instructions a document).
            guard bytes.count == encoded.count else { return false }
            return encoded.withUnsafeBytes { mine in
                mine.count == 0 || memcmp(mine.baseAddress!, bytes.baseAddress!, mine.count) == 0
            }
        }
    }

    /// The stored document of `key`, or nil.
    func loadDocument(_ txn: borrowing Transaction, _ key: DocumentKey) throws -> TabBarDocument? {
        try txn.withValue(documents, key: spaces.documentKey(key)) {
            bytes throws(TabKeepError) -> TabBarDocument? in
            guard let bytes else { return nil }
            do throws(DocumentDecodingError) {
                return try TabBarDocument(decoding: bytes)
            } catch {
                throw .corruptDocument(key, error)
            }
        }
    }

    /// Writes `document` under `key`, keeping `versions` in step: the dots that are new to the
    /// document are counted into `raises` (written by `saveReplica`). `encoded`, when given, is
    /// `document.encoded()`, already made by the caller.
    ///
    /// Both dot lists are sorted, so the new dots are one merge walk. With `appending` (a bulk
    /// load into an emptied tree, in key order), each key is first tried with `MDB_APPEND`, which
    /// skips the tree search; a key that is not past the last one falls back to a plain put.
    ///
    /// `layouts` says what becomes of the document's stored layout record (``LayoutUpkeep``).
    @discardableResult
    func saveDocument(
        _ txn: borrowing Transaction, _ key: DocumentKey, _ document: TabBarDocument,
        previous: TabBarDocument?,
        raising raises: inout VersionRaises, appending: Bool = false, encoded: [UInt8]? = nil,
        storedAs storedKey: [UInt8]? = nil, layouts: LayoutUpkeep = .resolve
    ) throws -> [Dot] {
        try saveRecords(
            txn, key, encoded ?? document.encoded(), dots: Self.unique(document.dots),
            replacing: previous.map { Self.unique($0.dots) } ?? [], raising: &raises,
            appending: appending, storedAs: storedKey, layouts: layouts)
    }

    /// What a write of a document does with its stored layout record (`l` ‖ bar, ``CompactLayout``'s
    /// stored form): a record that is present is always its document's layout.
    enum LayoutUpkeep {
        /// Resolve the document against the bar's registered catalog and store that layout; with no
        /// registered catalog (or one with renames, whose layouts are not stored), delete the record.
        case resolve
        /// The same, with the bar's registered catalog already read in this transaction (nil:
        /// none is registered, or it did not decode).
        case resolveWith(registered: Catalog?)
        /// Nothing: no record can be there (a replace restore stores none: into a fresh file, or in
        /// one transaction after deleting every one).
        case none
    }

    /// ``saveDocument(_:_:_:previous:raising:appending:encoded:storedAs:layouts:)`` of a document given in
    /// its bytes, with nothing stored for `key` before (a fresh file's import): the document
    /// written, its versions raised.
    func saveEncoded(
        _ txn: borrowing Transaction, _ key: DocumentKey, _ document: EncodedDocument,
        raising raises: inout VersionRaises, appending: Bool, storedAs storedKey: [UInt8]
    ) throws {
        _ = try saveRecords(
            txn, key, document.bytes, dots: document.dots, replacing: [], raising: &raises,
            appending: appending, storedAs: storedKey, layouts: .none)
    }

    /// Writes the bytes of a document that ``SplicedEdit`` made under `key`, with the dots that
    /// left it (`removed`) and the new ones (`added`), each sorted, raising the versions of those.
    func saveSpliced(
        _ txn: borrowing Transaction, _ key: DocumentKey, _ bytes: [UInt8], removing removed: [Dot],
        adding added: [Dot], raising raises: inout VersionRaises, layouts: LayoutUpkeep = .resolve
    ) throws {
        // The two lists are disjoint: every dot of `added` is new.
        _ = try saveRecords(
            txn, key, bytes, dots: added, replacing: removed, raising: &raises,
            appending: false, storedAs: nil, layouts: layouts)
    }

    /// Writes a document's bytes `value`, whose sorted, unique dots are `new` in place of the
    /// document's dots `old`, raising the versions of the dots added; returns those. (No dot is a
    /// record of its own: schema 6 keeps them in the document only.)
    private func saveRecords(
        _ txn: borrowing Transaction, _ key: DocumentKey, _ value: [UInt8], dots new: [Dot],
        replacing old: [Dot], raising raises: inout VersionRaises, appending: Bool,
        storedAs storedKey: [UInt8]?, layouts: LayoutUpkeep
    ) throws -> [Dot] {
        // The document first: its key (profile ‖ 0 ‖ d ‖ bar) sorts before its layout's (‖ l ‖),
        // so a key-ordered import appends both instead of searching the tree. Keys not given
        // are built on the stack.
        if let storedKey {
            try Self.put(txn, documents, key: storedKey, value: value, appending: appending)
        } else {
            try spaces.withDocumentKey(key) { keyBytes in
                try Self.put(txn, documents, rawKey: keyBytes, value: value, appending: appending)
            }
        }
        switch layouts {
        case .none: break
        case .resolve, .resolveWith:
            let registered: Catalog?
            if case .resolveWith(let known) = layouts {
                registered = known
            } else {
                registered = try registeredCatalogIfAny(txn, bar: key.bar)
            }
            let record = registered.flatMap { Self.layoutRecord(of: value, catalog: $0) }
            try spaces.withKey(key, Records.Tag.layout) { layoutKey in
                if let record {
                    try Self.put(txn, documents, rawKey: layoutKey, value: record, appending: appending)
                } else {
                    _ = try txn.delete(documents, rawKey: layoutKey)
                }
            }
        }
        var added: [Dot] = []
        added.reserveCapacity(new.count)
        var oldIndex = 0
        for dot in new {
            while oldIndex < old.count && old[oldIndex] < dot { oldIndex += 1 }
            if oldIndex < old.count && old[oldIndex] == dot { continue }
            // Added dots are sorted: each replica's last one is its highest, raised once.
            if let last = added.last, last.replica != dot.replica {
                raises.raise(key.profile, last.replica, to: last.sequence)
            }
            added.append(dot)
        }
        if let last = added.last { raises.raise(key.profile, last.replica, to: last.sequence) }
        return added
    }

    /// The stored layout record of the document `bytes` in `bar`, resolved against the bar's
    /// registered catalog; nil when there is none (or it has renames, or does not decode).
    func layoutRecord(_ txn: borrowing Transaction, _ bar: BarID, of bytes: [UInt8]) throws -> [UInt8]? {
        try registeredCatalogIfAny(txn, bar: bar).flatMap { Self.layoutRecord(of: bytes, catalog: $0) }
    }

    /// The catalog registered for `bar`, or nil when none is or it does not decode.
    func registeredCatalogIfAny(_ txn: borrowing Transaction, bar: BarID) throws -> Catalog? {
        do {
            return try registeredCatalog(txn, bar: bar)
        } catch TabKeepError.noCatalog, TabKeepError.corruptCatalog {
            return nil
        }
    }

    /// The stored layout record of the document `bytes` resolved against `catalog`, the bar's
    /// registered one; nil when it has renames or the bytes do not decode.
    static func layoutRecord(of bytes: [UInt8], catalog: Catalog) -> [UInt8]? {
        guard catalog.renames.isEmpty else { return nil }
        let layout = try? bytes.withUnsafeBufferPointer {
            buffer throws(DocumentDecodingError) -> Layout in
            try LayoutDecoder.layout(decoding: buffer, catalog: catalog)
        }
        return layout?.compact?.storedRecord(fingerprint: catalog.fingerprint)
    }

    /// A put, tried first with `MDB_APPEND` when `appending`, of a key given as raw bytes.
    private static func put(
        _ txn: borrowing Transaction, _ database: Database, rawKey key: UnsafeRawBufferPointer,
        value: [UInt8], appending: Bool
    ) throws {
        try value.withUnsafeBytes { value in
            if appending {
                do {
                    try txn.put(database, rawKey: key, value: value, options: .append)
                    return
                } catch LMDBError.keyExists {
                    // Not past the last key: put it where it belongs.
                }
            }
            try txn.put(database, rawKey: key, value: value)
        }
    }

    /// A put, tried first with `MDB_APPEND` when `appending`.
    private static func put(
        _ txn: borrowing Transaction, _ database: Database, key: [UInt8], value: [UInt8], appending: Bool
    ) throws {
        try key.withUnsafeBytes { key in
            try put(txn, database, rawKey: key, value: value, appending: appending)
        }
    }

    /// A sorted list without repeats.
    private static func unique(_ sorted: [Dot]) -> [Dot] {
        var result = sorted
        var last: Dot?
        result.removeAll { dot in
            defer { last = dot }
            return dot == last
        }
        return result
    }

    /// The dot of a document's clear, if it has one.
    static func clearDot(_ document: TabBarDocument?) -> Dot? {
        guard let last = document?.entries.last, last.key == .cleared else { return nil }
        return last.dot
    }

    /// Raises `key`'s profile's vector to the dot of an incoming clear that lost to the stored one
    /// (its context was merged into the stored clear's): the store has seen it. A peer lacking that
    /// dot is sent the profile's changed section, whose every cleared bar's part carries its clear
    /// with the grown context.
    func keepClearDot(
        _ key: DocumentKey, incoming: TabBarDocument, merged: TabBarDocument,
        raising raises: inout VersionRaises
    ) {
        guard let dot = Self.clearDot(incoming), dot != Self.clearDot(merged) else { return }
        raises.raise(key.profile, dot.replica, to: dot.sequence)
    }

    /// Calls `body` with every document record (of `profile`, or of every profile) in key order.
    func forEachDocumentRecord(
        _ txn: borrowing Transaction, of profile: ProfileID?,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        if let profile {
            try txn.forEach(documents, in: .prefix(spaces.documentPrefix(profile)), body)
        } else {
            try spaces.forEach(txn, Records.Tag.document, body)
        }
    }

    // MARK: Reads

    /// The layout of `profile`'s `bar` as the user sees it, resolved against `catalog` (or the
    /// catalog registered for the bar). The layout the last write of the document stored, when it
    /// was resolved against this catalog (one LMDB get, no decoding); else one get and a
    /// layout-only decode (`LayoutDecoder`, which refuses exactly what the full decoder refuses).
    /// The registered catalog is decoded once and reused while its record's bytes stay the same.
    /// A profile never seen has the catalog's default layout.
    public func layout(_ profile: ProfileID, bar: BarID = .main, catalog: Catalog? = nil) throws(TabKeepError)
        -> Layout
    {
        let key = DocumentKey(profile: profile, bar: bar)
        return try read { txn in
            let resolvedCatalog = try catalog ?? registeredCatalog(txn, bar: bar)
            if let stored = try storedLayout(txn, key, catalog: resolvedCatalog) {
                return Layout(compact: stored)
            }
            return try spaces.withDocumentKey(key) { keyBytes in
                try txn.withValue(documents, rawKey: keyBytes) { bytes throws(TabKeepError) -> Layout in
                    guard let bytes else { return TabBarDocument().layout(catalog: resolvedCatalog) }
                    return try LayoutDecoder.layout(
                        storedBytes: bytes, key: key, catalog: resolvedCatalog)
                }
            }
        }
    }

    /// The layout stored beside `key`'s document, if it was resolved against `catalog` and reads well.
    private func storedLayout(_ txn: borrowing Transaction, _ key: DocumentKey, catalog: Catalog) throws
        -> CompactLayout?
    {
        // No layout resolved against a catalog with renames is stored: no get for one.
        guard spaces.tagged, catalog.renames.isEmpty else { return nil }
        return try spaces.withKey(key, Records.Tag.layout) { keyBytes in
            try txn.withValue(documents, rawKey: keyBytes) { bytes in
                bytes.flatMap { CompactLayout(storedRecord: $0, catalog: catalog) }
            }
        }
    }

    /// The stored document of `profile`'s `bar` (all its entries), or nil if none.
    public func document(_ profile: ProfileID, bar: BarID = .main) throws(TabKeepError) -> TabBarDocument? {
        let key = DocumentKey(profile: profile, bar: bar)
        return try read { txn in try loadDocument(txn, key) }
    }

    /// Every profile with at least one bar that holds something, in key order.
    public func profiles() throws(TabKeepError) -> [ProfileID] {
        var result: [ProfileID] = []
        for key in try documentKeys() where result.last != key.profile {
            result.append(key.profile)
        }
        return result
    }

    /// The bars of `profile` that hold something, in key order.
    public func bars(of profile: ProfileID) throws(TabKeepError) -> [BarID] {
        try documentKeys(profile: profile).map(\.bar)
    }

    /// The keys of documents (of `profile`, or of every profile) that hold entries (an erased bar
    /// keeps only its clear, and is left out).
    func documentKeys(profile: ProfileID? = nil) throws(TabKeepError) -> [DocumentKey] {
        return try read { txn in try documentKeys(txn, profile: profile) }
    }

    /// The keys of documents that hold entries, as `txn` sees them.
    func documentKeys(_ txn: borrowing Transaction, profile: ProfileID?) throws -> [DocumentKey] {
        var keys: [DocumentKey] = []
        try forEachDocumentRecord(txn, of: profile) { key, value in
            let documentKey = try spaces.documentKey(from: key)
            let document: TabBarDocument
            do {
                document = try TabBarDocument(decoding: value)
            } catch {
                keys.append(documentKey)  // a corrupt document is still listed, so it gets reported
                return true
            }
            // Tombstones beside a clear are an erased bar.
            if document.entries.contains(where: { $0.key != .cleared && $0.value != .removed }) {
                keys.append(documentKey)
            }
            return true
        }
        return keys
    }
}
