import Foundation
import LMDBKit

/// How a `replace` import writes the store.
package enum ReplaceStrategy: Sendable, Hashable {
    /// A fresh data file when the store can take one now (see
    /// ``TabKeepStore/importDocuments(mode:catalogs:dryRun:sizeHint:maxDrift:_:)``), else one
    /// transaction.
    case automatic
    /// One write transaction over the live file: the slow twin of the fresh file.
    case oneTransaction
    /// A fresh data file written `batch` documents a transaction, or the error that keeps the
    /// store from taking one; `preparing` says which thread encodes each document.
    case replacementFile(batch: Int = TabKeepStore.replaceBatch, preparing: ReplacePreparation = .balanced)
}

/// Which of a fresh-file import's two threads merges each fed document into an empty one and
/// encodes it: the same bytes either way, so only the time differs.
package enum ReplacePreparation: Sendable, Hashable {
    /// The feed's thread, for each batch it begins while the writer has a batch waiting (the
    /// writer is then the slower of the two), else the writer: the two threads share the work.
    case balanced
    /// Always the feed's thread.
    case byFeed
    /// Always the writer's thread.
    case byWriter
}

/// A `replace` import into a fresh data file: every record but the profiles tree copied as it is,
/// the fed documents written ``replaceBatch`` to a transaction, then the file renamed
/// over the store's (``Environment/replaceFile(mapSize:_:)``). It reports, publishes and stores
/// what the one-transaction import does (`importOnce`): the same documents, dots, vectors, change
/// log, clock and fresh identity; only the memory differs, flat in the feed's size.
extension TabKeepStore {
    /// Documents per transaction of the fresh file.
    package static let replaceBatch = 2_048

    /// What one import into a fresh file has done so far (copied wholesale by each batch, so a
    /// batch that runs again after the map grew starts from what the last one committed).
    fileprivate struct ReplaceProgress: Sendable {
        var fed: FedKeys
        var report = ImportReport()
        var log = ImportChangeLog(enabled: true)
        var newest = Stamp.zero
        /// The vector raises of `profile`, written when the feed moves past it.
        var raises = VersionRaises()
        var profile: ProfileID?
    }

    /// The import into a fresh file; nil when this store cannot take one now (a store of an older
    /// schema, or, in `lmdb` locking mode, one another process has open), so the caller imports in
    /// one transaction. Throws ``ImportFeedOutOfOrder`` (having changed nothing) for a feed out of
    /// key order.
    func importByReplacingFile(
        _ newCatalogs: [(bar: BarID, catalog: Catalog)], _ maxDrift: Duration, sizeHint: Int, batch: Int,
        preparing: ReplacePreparation,
        _ feed: (_ add: (DocumentKey, ImportedDocument) throws -> Void) throws -> Void
    ) throws -> ImportReport? {
        guard spaces.tagged else { return nil }
        let listening = watchers.hasSubscribers
        let mapSize = try environment.info().usedBytes + sizeHint * 2
        let outcome: (progress: ReplaceProgress, revisions: ClosedRange<UInt64>?, fresh: ReplicaID)
        do {
            outcome = try environment.replaceFile(mapSize: mapSize) { old, replacement in
                try fillReplacement(
                    old, replacement, newCatalogs, maxDrift, batch: max(1, batch), preparing: preparing, feed)
            }
        } catch LMDBError.inUseByAnotherProcess {
            return nil
        }
        identity.withLock { $0 = outcome.fresh }
        if listening { watchers.publish(outcome.progress.log.keys, revisions: outcome.revisions) }
        return outcome.progress.report
    }

    /// Writes the new content into `replacement`: what `current` holds outside the profiles tree,
    /// a fresh identity, the catalogs, then the fed documents; returns what it did.
    ///
    /// The feed runs on this thread and the batches are written on another, so reading the
    /// input and writing the file overlap (the fresh file has no other writer). The outcome is
    /// the one-after-the-other one: batches are written in feed order, and when the feed throws,
    /// the batches it handed over are still written first, so an earlier document's error (a
    /// feed out of key order, say) wins over a later one's, as in one transaction.
    private func fillReplacement(
        _ current: Environment, _ replacement: Environment,
        _ newCatalogs: [(bar: BarID, catalog: Catalog)], _ maxDrift: Duration, batch: Int,
        preparing: ReplacePreparation,
        _ feed: (_ add: (DocumentKey, ImportedDocument) throws -> Void) throws -> Void
    ) throws -> (progress: ReplaceProgress, revisions: ClosedRange<UInt64>?, fresh: ReplicaID) {
        for name in environment.databaseNames where name != documents.name {
            try copyRecords(current, into: replacement, try environment.database(name))
        }
        // The change log's newest records wait in the main database (schema 5), which holds
        // no database of its own to copy: at most a block of records.
        try copyRecords(current, into: replacement, .main, in: .prefix(Records.changeTailPrefix))
        var writer = try current.read { old in try loadWriteState(old) }
        let fresh = try replacement.write { txn in
            let fresh = try takeFreshIdentity(txn)
            for (bar, catalog) in newCatalogs {
                try txn.put(catalogsDatabase, key: Array(bar.rawValue.utf8), value: catalog.encoded())
            }
            return fresh
        }
        writer = ReplicaWriteState(id: fresh, clock: writer.clock)
        var start = ReplaceProgress(fed: FedKeys(ordered: true, spaces: spaces))
        start.report.catalogs = newCatalogs.count
        let pipe = BatchPipe()
        let written = pipe.startWriter { [self, start] in
            try current.read { old in
                var progress = start
                while let batch = pipe.receive() {
                    progress = try replacement.write { txn in
                        var next = progress
                        for item in batch { try self.replaceOne(old, txn, item, &next) }
                        return next
                    }
                }
                return progress
            }
        }
        var pending: BatchPipe.Batch = []
        pending.reserveCapacity(min(batch, Self.replaceBatch))
        var prepareHere = preparing == .byFeed
        do {
            try feed { key, fed in
                try Self.checkDrift(fed.maxStamp, maxDrift: maxDrift)
                if pending.isEmpty && preparing == .balanced { prepareHere = pipe.writerIsBehind }
                // The stored key is built once, here (the writer would build it three times).
                let item: FedDocument
                switch fed {
                case .decoded(let document):
                    item = FedDocument(
                        key: key, stored: spaces.documentKey(key), fed: fed,
                        prepared: prepareHere ? Self.prepared(document) : nil)
                case .encoded(let encoded):
                    // Already what the fresh file stores: nothing to merge or encode.
                    item = FedDocument(
                        key: key, stored: spaces.documentKey(key), fed: .encoded(encoded), prepared: nil)
                }
                pending.append(item)
                if pending.count >= batch {
                    try pipe.send(pending)
                    pending.removeAll(keepingCapacity: true)
                }
            }
            if !pending.isEmpty { try pipe.send(pending) }
        } catch {
            // What the writer made of the batches before this document decides first.
            pipe.close()
            _ = try written.wait()
            throw error
        }
        pipe.close()
        let progress = try written.wait()
        let (finished, revisions) = try current.read { old in
            try replacement.write { txn in
                var next = progress
                next.report.removed += try countRemoved(old, in: next.fed.rest, log: &next.log)
                try writeRaises(txn, &next.raises)
                var last = writer
                last.clock.observe(next.newest)
                let revisions = try saveWriteState(
                    txn, last, raising: VersionRaises(), changed: next.log.keys)
                return (next, revisions)
            }
        }
        return (finished, revisions, fresh)
    }

    /// A fed document as the fresh file stores it: merged into an empty document (which is how
    /// `importOnce` writes it) and encoded.
    fileprivate static func prepared(_ document: TabBarDocument) -> (
        document: TabBarDocument, encoded: [UInt8]
    ) {
        var replacement = TabBarDocument()
        replacement.merge(document)
        return (replacement, replacement.encoded())
    }

    /// One fed document, as `importOnce` treats it in a key-ordered `replace`: compared with what
    /// `old` stored (the report), written into `txn` with all its dots.
    private func replaceOne(
        _ old: borrowing Transaction, _ txn: borrowing Transaction, _ item: FedDocument,
        _ progress: inout ReplaceProgress
    ) throws {
        let (key, stored) = (item.key, item.stored)
        if let profile = progress.profile, profile != key.profile { try writeRaises(txn, &progress.raises) }
        progress.profile = key.profile
        progress.newest = max(progress.newest, item.fed.maxStamp)
        switch try progress.fed.admit(key, storedAs: stored) {
        case .again:
            // Fed twice: the second merges into what the first wrote, as in one transaction.
            let document = try item.fed.document()
            let previous = try loadDocument(txn, key)
            var merged = previous ?? TabBarDocument()
            merged.merge(document)
            if merged == previous {
                progress.report.unchanged += 1
            } else {
                progress.report.changed += 1
                try saveDocument(
                    txn, key, merged, previous: previous, raising: &progress.raises, layouts: .none)
                progress.log.record(key)
            }
        case .first(let passed):
            if let passed { progress.report.removed += try countRemoved(old, in: passed, log: &progress.log) }
            let encoded: [UInt8]
            var replacement: TabBarDocument?
            if let ready = item.encoded {
                encoded = ready.bytes
                try saveEncoded(txn, key, ready, raising: &progress.raises, appending: true, storedAs: stored)
            } else {
                let prepared = try item.prepared ?? Self.prepared(item.fed.document())
                (replacement, encoded) = (prepared.document, prepared.encoded)
                try saveDocument(
                    txn, key, prepared.document, previous: nil, raising: &progress.raises, appending: true,
                    encoded: encoded, storedAs: stored, layouts: .none)
            }
            // The same bytes are the same document, decoded or not; anything else is decoded to
            // tell a change from an addition (and a corrupt document, which counts as changed).
            switch try storesBytes(old, key, encoded, storedAs: stored) {
            case true?:
                progress.report.unchanged += 1
                return
            case nil:
                progress.report.added += 1
                progress.log.record(key)
                return
            case false?: break
            }
            let (previous, stored) = try loadReplaced(old, key)
            // An encoded document is decoded only to be compared with a stored one.
            if previous != nil, replacement == nil { replacement = try item.fed.document() }
            if previous != nil && replacement == previous {
                progress.report.unchanged += 1
            } else {
                if stored { progress.report.changed += 1 } else { progress.report.added += 1 }
                progress.log.record(key)
            }
        }
    }

    /// Counts (and logs) the documents `old` holds in `range`: the ones the feed passed over,
    /// which the fresh file leaves out.
    private func countRemoved(_ old: borrowing Transaction, in range: KeyRange, log: inout ImportChangeLog)
        throws -> Int
    {
        var removed = 0
        try spaces.forEach(old, Records.Tag.document, from: range.lower) { key, _ in
            guard range.contains(key) else { return false }
            log.record(try spaces.documentKey(from: key))
            removed += 1
            return true
        }
        return removed
    }

    /// Copies every record of `database` (in `range`) from `current` into `replacement`, in key
    /// order, a batch of records per transaction.
    private func copyRecords(
        _ current: Environment, into replacement: Environment, _ database: Database, in range: KeyRange = .all
    )
        throws
    {
        try current.read { old in
            var lower = range.lower
            repeat {
                lower = try replacement.write { txn -> [UInt8]? in
                    var copied = 0
                    var next: [UInt8]?
                    try old.forEach(database, in: KeyRange(from: lower, to: range.upper)) { key, value in
                        if copied == 8_192 {
                            next = Array(key)
                            return false
                        }
                        // The main database's tail sorts before the database records already there.
                        try txn.put(
                            database, key: Array(key), value: Array(value),
                            options: database == .main ? [] : .append)
                        copied += 1
                        return true
                    }
                    return next
                }
            } while lower != nil
        }
    }
}

/// One fed document on its way to the writer: its stored key, and the document — decoded (and,
/// when the feed's thread prepared it, merged and encoded as the fresh file stores it) or
/// already in the bytes the fresh file stores.
private struct FedDocument: Sendable {
    let key: DocumentKey
    let stored: [UInt8]
    /// The document as fed.
    let fed: ImportedDocument
    /// A decoded document merged and encoded as the fresh file stores it, when the feed's thread
    /// prepared it.
    let prepared: (document: TabBarDocument, encoded: [UInt8])?

    init(key: DocumentKey, stored: [UInt8], fed: ImportedDocument, prepared: (TabBarDocument, [UInt8])?) {
        (self.key, self.stored, self.fed, self.prepared) = (key, stored, fed, prepared)
    }

    /// The document's bytes when it came encoded.
    var encoded: EncodedDocument? {
        if case .encoded(let encoded) = fed { return encoded }
        return nil
    }
}

/// The batches of a fresh-file import, from the thread that runs the feed to the one that writes
/// them: at most two wait, so memory stays a few batches whatever the feed's size.
// @unchecked: every field is read and written with `condition` held
private final class BatchPipe: @unchecked Sendable {
    typealias Batch = [FedDocument]

    private let condition = NSCondition()
    private var queued: [Batch] = []
    private var closed = false
    private var failure: (any Error)?
    private static let capacity = 2

    /// The writer's outcome, once it has ended.
    // @unchecked: `result` is written before `done` is signalled and read after it is waited for
    final class Outcome: @unchecked Sendable {
        fileprivate let done = DispatchSemaphore(value: 0)
        fileprivate var result: Result<TabKeepStore.ReplaceProgress, any Error>?

        /// Waits for the writer to end; its progress, or the error it ended with.
        func wait() throws -> TabKeepStore.ReplaceProgress {
            done.wait()
            done.signal()
            return try result!.get()
        }
    }

    /// Runs `write` on a thread of its own; an error it throws stops the feed at its next batch.
    func startWriter(_ write: @escaping @Sendable () throws -> TabKeepStore.ReplaceProgress) -> Outcome {
        let outcome = Outcome()
        let thread = Thread { [self] in
            let result = Result { try write() }
            if case .failure(let error) = result { fail(error) }
            outcome.result = result
            outcome.done.signal()
        }
        thread.name = "TabKeep replace restore writer"
        thread.start()
        return outcome
    }

    /// Hands `batch` to the writer, waiting while two batches wait; throws the writer's error.
    func send(_ batch: Batch) throws {
        condition.lock()
        defer { condition.unlock() }
        while queued.count >= Self.capacity && failure == nil { condition.wait() }
        if let failure { throw failure }
        queued.append(batch)
        condition.broadcast()
    }

    /// Whether a batch handed over waits for the writer (which is then the slower thread).
    var writerIsBehind: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !queued.isEmpty
    }

    /// The feed is done: the writer ends once it has written what was handed over.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch, or nil once the feed is done and every batch written (or the writer failed).
    func receive() -> Batch? {
        condition.lock()
        defer { condition.unlock() }
        while queued.isEmpty && !closed && failure == nil { condition.wait() }
        guard failure == nil, !queued.isEmpty else { return nil }
        condition.broadcast()
        return queued.removeFirst()
    }

    private func fail(_ error: any Error) {
        condition.lock()
        failure = error
        queued = []
        condition.broadcast()
        condition.unlock()
    }
}
