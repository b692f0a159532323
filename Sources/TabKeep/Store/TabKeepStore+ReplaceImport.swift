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
    /// store from taking one.
    case replacementFile(batch: Int = TabKeepStore.replaceBatch)
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
    private struct ReplaceProgress {
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
        _ feed: (_ add: (DocumentKey, TabBarDocument) throws -> Void) throws -> Void
    ) throws -> ImportReport? {
        guard spaces.tagged else { return nil }
        let listening = watchers.hasSubscribers
        let mapSize = try environment.info().usedBytes + sizeHint * 2
        let outcome: (progress: ReplaceProgress, revisions: ClosedRange<UInt64>?, fresh: ReplicaID)
        do {
            outcome = try environment.replaceFile(mapSize: mapSize) { old, replacement in
                try fillReplacement(old, replacement, newCatalogs, maxDrift, batch: max(1, batch), feed)
            }
        } catch LMDBError.inUseByAnotherProcess {
            return nil
        }
        identity.withLock { $0 = outcome.fresh }
        if listening { watchers.publish(outcome.progress.log.keys, revisions: outcome.revisions) }
        return outcome.progress.report
    }

    /// Writes the new content into `replacement`: what `old` holds outside the profiles tree, a
    /// fresh identity, the catalogs, then the fed documents; returns what it did.
    private func fillReplacement(
        _ old: borrowing Transaction, _ replacement: Environment,
        _ newCatalogs: [(bar: BarID, catalog: Catalog)], _ maxDrift: Duration, batch: Int,
        _ feed: (_ add: (DocumentKey, TabBarDocument) throws -> Void) throws -> Void
    ) throws -> (progress: ReplaceProgress, revisions: ClosedRange<UInt64>?, fresh: ReplicaID) {
        for name in environment.databaseNames where name != documents.name {
            try copyRecords(old, into: replacement, try environment.database(name))
        }
        var writer = try loadWriteState(old)
        let fresh = try replacement.write { txn in
            let fresh = try takeFreshIdentity(txn)
            for (bar, catalog) in newCatalogs {
                try txn.put(catalogsDatabase, key: Array(bar.rawValue.utf8), value: catalog.encoded())
            }
            return fresh
        }
        writer = ReplicaWriteState(id: fresh, clock: writer.clock)
        var progress = ReplaceProgress(fed: FedKeys(ordered: true, spaces: spaces))
        progress.report.catalogs = newCatalogs.count
        var pending: [(key: DocumentKey, document: TabBarDocument)] = []
        pending.reserveCapacity(min(batch, Self.replaceBatch))
        func writePending() throws {
            guard !pending.isEmpty else { return }
            progress = try replacement.write { txn in
                var next = progress
                for (key, document) in pending { try replaceOne(old, txn, key, document, &next) }
                return next
            }
            pending.removeAll(keepingCapacity: true)
        }
        try feed { key, document in
            try Self.checkDrift(document.maxStamp, maxDrift: maxDrift)
            pending.append((key, document))
            if pending.count >= batch { try writePending() }
        }
        try writePending()
        let (finished, revisions) = try replacement.write { txn in
            var next = progress
            next.report.removed += try countRemoved(old, in: next.fed.rest, log: &next.log)
            try writeRaises(txn, &next.raises)
            var last = writer
            last.clock.observe(next.newest)
            let revisions = try saveWriteState(txn, last, raising: VersionRaises(), changed: next.log.keys)
            return (next, revisions)
        }
        return (finished, revisions, fresh)
    }

    /// One fed document, as `importOnce` treats it in a key-ordered `replace`: compared with what
    /// `old` stored (the report), written into `txn` with all its dots.
    private func replaceOne(
        _ old: borrowing Transaction, _ txn: borrowing Transaction, _ key: DocumentKey,
        _ document: TabBarDocument, _ progress: inout ReplaceProgress
    ) throws {
        if let profile = progress.profile, profile != key.profile { try writeRaises(txn, &progress.raises) }
        progress.profile = key.profile
        progress.newest = max(progress.newest, document.maxStamp)
        switch try progress.fed.admit(key) {
        case .again:
            // Fed twice: the second merges into what the first wrote, as in one transaction.
            let previous = try loadDocument(txn, key)
            var merged = previous ?? TabBarDocument()
            merged.merge(document)
            if merged == previous {
                progress.report.unchanged += 1
            } else {
                progress.report.changed += 1
                try saveDocument(txn, key, merged, previous: previous, raising: &progress.raises)
                progress.log.record(key)
            }
        case .first(let passed):
            if let passed { progress.report.removed += try countRemoved(old, in: passed, log: &progress.log) }
            let (previous, stored) = try loadReplaced(old, key)
            var replacement = TabBarDocument()
            replacement.merge(document)
            try saveDocument(txn, key, replacement, previous: nil, raising: &progress.raises, appending: true)
            if replacement == previous {
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

    /// Writes the vector raises gathered so far and forgets them.
    private func writeRaises(_ txn: borrowing Transaction, _ raises: inout VersionRaises) throws {
        for (profile, replicas) in raises.highest.sorted(by: { $0.key < $1.key }) {
            for (replica, sequence) in replicas.sorted(by: { $0.key < $1.key }) {
                try raiseVersion(txn, profile, replica, to: sequence)
            }
        }
        raises = VersionRaises()
    }

    /// Copies every record of `database` from `old` into `replacement`, in key order, a batch of
    /// records per transaction.
    private func copyRecords(
        _ old: borrowing Transaction, into replacement: Environment, _ database: Database
    )
        throws
    {
        var lower: [UInt8]?
        repeat {
            lower = try replacement.write { txn -> [UInt8]? in
                var copied = 0
                var next: [UInt8]?
                try old.forEach(database, in: KeyRange(from: lower, to: nil)) { key, value in
                    if copied == 8_192 {
                        next = Array(key)
                        return false
                    }
                    try txn.put(database, key: Array(key), value: Array(value), options: .append)
                    copied += 1
                    return true
                }
                return next
            }
        } while lower != nil
    }
}
