import LMDBKit

/// What a store has that a peer lacks: the low-level currency of sync, restore and dump.
public struct StoreDelta: Hashable, Sendable {
    /// Each changed document, reduced to the entries the peer lacks, in key order.
    public var documents: [DocumentDelta]
    /// The sending store's version vector when the delta was taken.
    public var vector: VersionVector
    /// Rows read to build the delta (dots scanned plus documents loaded): it grows with the
    /// change, not with the store.
    public var rowsVisited: Int

    /// A delta of `documents` taken at `vector`.
    public init(documents: [DocumentDelta], vector: VersionVector, rowsVisited: Int = 0) {
        self.documents = documents
        self.vector = vector
        self.rowsVisited = rowsVisited
    }
}

/// One document's part of a ``StoreDelta``.
public struct DocumentDelta: Hashable, Sendable {
    /// Which (profile, bar).
    public var key: DocumentKey
    /// The entries (a partial document), merged into the receiver's document.
    public var document: TabBarDocument

    /// The part `document` of the document at `key`.
    public init(key: DocumentKey, document: TabBarDocument) {
        self.key = key
        self.document = document
    }
}

/// How ``TabKeepStore/importDocuments(mode:catalogs:dryRun:sizeHint:_:)`` treats what the store holds.
public enum ImportMode: String, Hashable, Sendable, CaseIterable {
    /// Empty the store's documents first; the store then holds exactly the imported ones.
    case replace
    /// Merge each imported document into the stored one, entry by entry (as a sync would).
    case merge
}

/// What an import changed (or, in a dry run, would change).
public struct ImportReport: Hashable, Sendable {
    /// Documents the store did not have.
    public var added = 0
    /// Documents whose stored value changed.
    public var changed = 0
    /// Documents already identical.
    public var unchanged = 0
    /// Documents removed (replace mode only).
    public var removed = 0
    /// Catalogs registered.
    public var catalogs = 0
}

extension TabKeepStore {
    /// Everything this store has that a peer with version vector `peer` lacks.
    ///
    /// Found through `dots`: for each replica, the dots past the peer's sequence point at the
    /// documents to send, and each is reduced to the entries the peer lacks.
    public func delta(after peer: VersionVector) throws(TabKeepError) -> StoreDelta {
        do {
            return try environment.read { txn in
                let now = try readVersions(txn)
                var keys: Set<DocumentKey> = []
                var rows = 0
                for replica in now.replicas where now[replica] > peer[replica] {
                    var range = KeyRange.prefix(Records.bigEndian(replica.rawValue))
                    range.lower = Records.dotKey(Dot(replica: replica, sequence: peer[replica] + 1))
                    try txn.forEach(dots, in: range) { _, value in
                        rows += 1
                        keys.insert(try DocumentKey(bytes: value))
                        return true
                    }
                }
                var result: [DocumentDelta] = []
                for key in keys.sorted() {
                    rows += 1
                    guard let document = try loadDocument(txn, key) else { continue }
                    let part = Self.part(of: document, after: peer)
                    if !part.isEmpty { result.append(DocumentDelta(key: key, document: part)) }
                }
                return StoreDelta(documents: result, vector: now, rowsVisited: rows)
            }
        } catch {
            throw TabKeepError.wrap(error)
        }
    }

    /// The entries of `document` a peer at `peer` lacks, plus the document's clear: a tombstone
    /// is only valid (and only decodes) beside the clear whose context covers it, and a merged
    /// clear keeps one dot while its context grows, so the document is found through the dots of
    /// the clears merged into it (see `saveDocument`) and its clear always travels.
    static func part(of document: TabBarDocument, after peer: VersionVector) -> TabBarDocument {
        let part = document.delta(after: peer)
        guard let clear = document.entries.last, clear.key == .cleared, part.entries.last?.key != .cleared
        else { return part }
        return (try? TabBarDocument(entries: part.entries + [clear])) ?? part
    }

    /// Merges `documents` from a peer whose version vector was `vector`, in one write transaction:
    /// all or nothing. Entries stamped more than `maxDrift` ahead of this machine's clock make the
    /// whole call fail with ``TabKeepError/clockDrift(aheadMilliseconds:limitMilliseconds:)``,
    /// before anything is written and without moving the local clock. Returns the changed keys.
    @discardableResult
    public func apply(_ documents: [DocumentDelta], vector: VersionVector, maxDrift: Duration = .seconds(300))
        throws(TabKeepError) -> [DocumentKey]
    {
        let newest = documents.map(\.document.maxStamp).max() ?? .zero
        let limit = UInt64(max(0, maxDrift.components.seconds)) * 1_000
        let now = HybridLogicalClock.wallMilliseconds()
        if newest.milliseconds > now + limit {
            throw .clockDrift(aheadMilliseconds: newest.milliseconds - now, limitMilliseconds: limit)
        }
        do {
            let (changed, added): ([DocumentKey], [Dot]) = try environment.write { txn in
                var replica = try loadReplica(txn)
                var changed: [DocumentKey] = []
                var added: [Dot] = []
                for delta in documents {
                    let previous = try loadDocument(txn, delta.key)
                    var merged = previous ?? TabBarDocument()
                    merged.merge(delta.document)
                    if merged == previous { continue }
                    added += try saveDocument(txn, delta.key, merged, previous: previous)
                    added += try keepClearDot(txn, delta.key, incoming: delta.document, merged: merged)
                    changed.append(delta.key)
                }
                for peer in vector.replicas { try raiseVersion(txn, peer, to: vector[peer]) }
                replica.clock.observe(newest)
                try saveReplica(txn, replica)
                return (changed, added)
            }
            watchers.publish(changed, dots: added)
            return changed
        } catch {
            throw TabKeepError.wrap(error)
        }
    }

    /// Calls `body` with every stored document in key order, from one consistent snapshot, erased
    /// ones included; a document that does not decode is passed as a failure and the walk goes on.
    public func forEachDocument(
        _ body: (DocumentKey, Result<TabBarDocument, TabKeepError>) throws -> Void
    ) throws(TabKeepError) {
        do {
            try environment.read { txn in
                try txn.forEach(documents) { key, value in
                    let documentKey = try DocumentKey(bytes: key)
                    do {
                        try body(documentKey, .success(try TabBarDocument(decoding: value)))
                    } catch let error as DocumentDecodingError {
                        try body(documentKey, .failure(.corruptDocument(documentKey, error)))
                    }
                    return true
                }
            }
        } catch {
            throw TabKeepError.wrap(error)
        }
    }

    /// Imports documents in one write transaction: `feed` calls its argument once per document.
    ///
    /// `replace` empties the store's documents first; `merge` merges entry by entry. With
    /// `dryRun`, nothing is written and the report says what would change. `feed` may be called
    /// more than once (when the map must grow), so it must produce the same documents each time;
    /// `sizeHint`, the expected bytes, grows the map once up front instead.
    @discardableResult
    public func importDocuments(
        mode: ImportMode, catalogs newCatalogs: [(bar: BarID, catalog: Catalog)] = [], dryRun: Bool = false,
        sizeHint: Int = 0, _ feed: (_ add: (DocumentKey, TabBarDocument) throws -> Void) throws -> Void
    ) throws(TabKeepError) -> ImportReport {
        struct DryRun: Error { var report: ImportReport }
        do {
            if sizeHint > 0 && !dryRun {
                try environment.reserveMapSize(atLeast: environment.info().usedBytes + sizeHint * 2)
            }
            let (report, changed, added): (ImportReport, [DocumentKey], [Dot]) = try environment.write { txn in
                var report = ImportReport()
                var replica = try loadReplica(txn)
                var changed: [DocumentKey] = []
                var added: [Dot] = []
                var existing: Set<DocumentKey> = []
                if mode == .replace {
                    try txn.forEach(documents) { key, _ in
                        existing.insert(try DocumentKey(bytes: key))
                        return true
                    }
                    try txn.removeAll(documents)
                    try txn.removeAll(dots)
                    try txn.removeAll(versions)
                    try saveReplica(txn, replica)
                }
                for (bar, catalog) in newCatalogs {
                    try txn.put(catalogsDatabase, key: Array(bar.rawValue.utf8), value: catalog.encoded())
                    report.catalogs += 1
                }
                var newest = Stamp.zero
                try feed { key, document in
                    newest = max(newest, document.maxStamp)
                    let previous = try loadDocument(txn, key)
                    var merged = previous ?? TabBarDocument()
                    merged.merge(document)
                    let wasThere = previous != nil || existing.remove(key) != nil
                    if merged == previous {
                        report.unchanged += 1
                        return
                    }
                    if wasThere { report.changed += 1 } else { report.added += 1 }
                    added += try saveDocument(txn, key, merged, previous: previous)
                    changed.append(key)
                }
                report.removed = existing.count
                changed += existing
                replica.clock.observe(newest)
                try saveReplica(txn, replica)
                if dryRun { throw DryRun(report: report) }
                return (report, changed, added)
            }
            watchers.publish(changed, dots: added)
            return report
        } catch let dry as DryRun {
            return dry.report
        } catch {
            throw TabKeepError.wrap(error)
        }
    }
}
