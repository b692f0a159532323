import LMDBKit

extension TabKeepStore {
    /// Applies `edits` to `profile`'s `bar`, in order, atomically: all commit, or, if one throws,
    /// none does. Order-dependent edits resolve against `catalog` (or the registered one).
    ///
    /// Returns when the commit is done (on disk in `.full` mode). From UI code, prefer the `async`
    /// variant, which never blocks the caller on fsync.
    public func edit(
        _ profile: ProfileID, bar: BarID = .main, catalog: Catalog? = nil, _ edits: [TabBarEdit]
    ) throws(TabKeepError) {
        let key = DocumentKey(profile: profile, bar: bar)
        let request = EditRequest(key: key, catalog: catalog, edits: edits)
        try commit([request])[0].get()
    }

    /// Applies one edit to `profile`'s `bar`; see the `edit(_:bar:catalog:_:)` taking a list of edits.
    public func edit(_ profile: ProfileID, bar: BarID = .main, catalog: Catalog? = nil, _ edit: TabBarEdit)
        throws(TabKeepError)
    {
        try self.edit(profile, bar: bar, catalog: catalog, [edit])
    }

    /// Resets `profile`'s `bar` to the catalog's defaults: an observed-remove clear of every entry
    /// this store has seen (edits made elsewhere that it has not seen survive a later sync).
    public func reset(_ profile: ProfileID, bar: BarID = .main) throws(TabKeepError) {
        try edit(profile, bar: bar, catalog: Catalog.empty, [.reset])
    }

    /// Registers `catalog` as the app's current catalog for `bar` and applies `edits` to
    /// `profile`'s `bar`, resolved against it, in one transaction: the catalog and the edits all
    /// commit, or, if one edit throws, nothing does (the catalog stays unregistered).
    public func edit(
        _ profile: ProfileID, bar: BarID = .main, registering catalog: Catalog, _ edits: [TabBarEdit]
    ) throws(TabKeepError) {
        let request = EditRequest(
            key: DocumentKey(profile: profile, bar: bar), catalog: catalog, edits: edits)
        _ = try commit(registering: [(bar, catalog)], allOrNothing: true) { _ in [request] }
    }

    /// Erases `profile`: every bar is cleared, permanently on this replica the moment it commits.
    /// All or nothing: the bars are listed and cleared in one transaction, and if one cannot be
    /// cleared (a corrupt document, say) none is. Returns the bars that were erased (none for a
    /// profile the store does not hold).
    @discardableResult
    public func erase(_ profile: ProfileID) throws(TabKeepError) -> [BarID] {
        let (requests, _) = try commit(allOrNothing: true) { txn in
            try documentKeys(txn, profile: profile).map {
                EditRequest(key: $0, catalog: .empty, edits: [.reset])
            }
        }
        return requests.map(\.key.bar)
    }

    /// Folds `guest`'s bars into `account` (a guest session into a signed-in account) by the merge
    /// rules: for each entry the later write wins, badge increments add up. With `removingGuest`,
    /// the guest profile is erased in the same transaction.
    public func mergeProfile(_ guest: ProfileID, into account: ProfileID, removingGuest: Bool = true)
        throws(TabKeepError)
    {
        guard guest != account else { return }
        let (changed, revisions): ([DocumentKey], ClosedRange<UInt64>?) = try write { txn in
            var writer = try loadWriteState(txn)
            var raises = VersionRaises()
            var changed: [DocumentKey] = []
            for bar in try barsOf(txn, guest) {
                let guestKey = DocumentKey(profile: guest, bar: bar)
                let accountKey = DocumentKey(profile: account, bar: bar)
                guard let guestDocument = try loadDocument(txn, guestKey) else { continue }
                let previous = try loadDocument(txn, accountKey)
                var merged = previous ?? TabBarDocument()
                var replica = try self.replica(for: account, &writer, txn)
                merged.fold(guestDocument, by: &replica)
                absorb(replica, for: account, into: &writer)
                // An erased guest folds nothing: store no empty account document.
                if merged != (previous ?? TabBarDocument()) {
                    try saveDocument(
                        txn, accountKey, merged, previous: previous, raising: &raises)
                    changed.append(accountKey)
                }
                if removingGuest {
                    var cleared = guestDocument
                    var replica = try self.replica(for: guest, &writer, txn)
                    try cleared.apply(.reset, catalog: .empty, by: &replica)
                    absorb(replica, for: guest, into: &writer)
                    try saveDocument(
                        txn, guestKey, cleared, previous: guestDocument, raising: &raises)
                    changed.append(guestKey)
                }
            }
            return (changed, try saveWriteState(txn, writer, raising: raises, changed: changed))
        }
        watchers.publish(changed, revisions: revisions)
    }

    /// The bars of `profile` with a stored document, erased ones included.
    func barsOf(_ txn: borrowing Transaction, _ profile: ProfileID) throws -> [BarID] {
        var bars: [BarID] = []
        try txn.forEach(documents, in: .prefix(spaces.documentPrefix(profile))) { key, _ in
            bars.append(try spaces.documentKey(from: key).bar)
            return true
        }
        return bars
    }

    /// Commits `requests` in one write transaction. Each request's edits apply all-or-nothing: one
    /// that throws leaves its document untouched and reports its error, and the others still commit.
    func commit(_ requests: [EditRequest]) throws(TabKeepError) -> [Result<Void, TabKeepError>] {
        try commit(allOrNothing: false) { _ in requests }.results
    }

    /// Registers `catalogs`, then commits the requests `makeRequests` lists inside the same write
    /// transaction (it may run more than once, see `Environment.write`). With `allOrNothing`, the
    /// first request that throws aborts the whole transaction, catalogs included, and is thrown;
    /// otherwise each failed request reports its error and the others still commit.
    func commit(
        registering catalogs: [(bar: BarID, catalog: Catalog)] = [], allOrNothing: Bool,
        requests makeRequests: (borrowing Transaction) throws -> [EditRequest]
    ) throws(TabKeepError) -> (requests: [EditRequest], results: [Result<Void, TabKeepError>]) {
        let (requests, results, changed, revisions) = try write { txn in
            for (bar, catalog) in catalogs { try putCatalog(txn, catalog, for: bar) }
            let requests = try makeRequests(txn)
            var writer = try loadWriteState(txn)
            var working = SmallMap<DocumentKey, (previous: TabBarDocument?, current: TabBarDocument)>()
            // Documents whose edits were spliced into their stored bytes (``SplicedEdit``): only a
            // key no other request of this commit names, whose edits all build on the stored bytes.
            var spliced = SmallMap<DocumentKey, (bytes: [UInt8], removed: [Dot], added: [Dot])>()
            let repeated = Self.repeatedKeys(requests)
            var catalogsByBar = SmallMap<BarID, Catalog>()
            var results: [Result<Void, TabKeepError>] = []
            results.reserveCapacity(requests.count)
            for request in requests {
                do {
                    let catalog: Catalog
                    if let given = request.catalog {
                        catalog = given
                    } else if let cached = catalogsByBar[request.key.bar] {
                        catalog = cached
                    } else {
                        // Decoded once per record bytes (the cache `layout` uses), not per edit;
                        // the bytes are still read in this transaction.
                        catalog = try registeredCatalog(txn, bar: request.key.bar)
                        catalogsByBar[request.key.bar] = catalog
                    }
                    if !repeated.contains(request.key),
                        let outcome = try splice(txn, request, catalog: catalog, into: &writer)
                    {
                        if case .spliced(let bytes, let removed, let added) = outcome {
                            spliced[request.key] = (bytes, removed, added)
                        }
                        results.append(.success(()))
                        continue
                    }
                    let state =
                        try working[request.key]
                        ?? {
                            let stored = try loadDocument(txn, request.key)
                            return (stored, stored ?? TabBarDocument())
                        }()
                    var document = state.current
                    var scratch = try replica(for: request.key.profile, &writer, txn)
                    for edit in request.edits { try document.apply(edit, catalog: catalog, by: &scratch) }
                    absorb(scratch, for: request.key.profile, into: &writer)
                    working[request.key] = (state.previous, document)
                    results.append(.success(()))
                } catch {
                    if allOrNothing { throw error }
                    results.append(.failure(TabKeepError.wrap(error)))
                }
            }
            // An edit that wrote nothing (clearing an absent badge) stores no empty document.
            var changed = working.keys.sorted().filter { key in
                let state = working[key]!
                return state.current != (state.previous ?? TabBarDocument())
            }
            var raises = VersionRaises()
            for key in changed {
                let state = working[key]!
                try saveDocument(
                    txn, key, state.current, previous: state.previous, raising: &raises,
                    layouts: Self.layoutUpkeep(key.bar, catalogsByBar))
            }
            if !spliced.isEmpty {
                try spliced.forEachInKeyOrder { key, document in
                    try saveSpliced(
                        txn, key, document.bytes, removing: document.removed, adding: document.added,
                        raising: &raises, layouts: Self.layoutUpkeep(key.bar, catalogsByBar))
                }
                changed = (changed + spliced.keys).sorted()
            }
            let revisions =
                changed.isEmpty ? nil : try saveWriteState(txn, writer, raising: raises, changed: changed)
            return (requests, results, changed, revisions)
        }
        watchers.publish(changed, revisions: revisions)
        return (requests, results)
    }
}

extension TabKeepStore {
    /// How a commit's write of a document of `bar` keeps its layout record: with the registered
    /// catalog a request already read in this transaction (after the commit's registrations),
    /// else read again.
    static func layoutUpkeep(_ bar: BarID, _ registered: SmallMap<BarID, Catalog>) -> LayoutUpkeep {
        registered[bar].map { .resolveWith(registered: $0) } ?? .resolve
    }

    /// The keys more than one of `requests` names.
    static func repeatedKeys(_ requests: [EditRequest]) -> Set<DocumentKey> {
        guard requests.count > 1 else { return [] }
        var seen = Set<DocumentKey>()
        var repeated = Set<DocumentKey>()
        for request in requests where !seen.insert(request.key).inserted { repeated.insert(request.key) }
        return repeated
    }

    /// `request`'s edits spliced into its document's stored bytes, as `writer`'s replica (taking
    /// the stamps and dots they used); nil when that path does not apply (a wide edit, a catalog
    /// with renames, no stored document, bytes that do not decode), and the full path decides.
    func splice(
        _ txn: borrowing Transaction, _ request: EditRequest, catalog: Catalog,
        into writer: inout ReplicaWriteState
    ) throws -> SplicedEdit.Outcome? {
        guard catalog.renames.isEmpty, SplicedEdit.tabs(of: request.edits) != nil else { return nil }
        var scratch = try replica(for: request.key.profile, &writer, txn)
        let outcome = try spaces.withDocumentKey(request.key) { documentKey in
            try txn.withValue(documents, rawKey: documentKey) {
                bytes throws(EditError) -> SplicedEdit.Outcome? in
                guard let bytes else { return nil }
                let stored = bytes.assumingMemoryBound(to: UInt8.self)
                let outcome = try SplicedEdit.apply(request.edits, to: stored, catalog: catalog, by: &scratch)
                assert(
                    SplicedEdit.agrees(stored, outcome),
                    "a splice disagrees with the documents it went between")
                return outcome
            }
        }
        if outcome != nil { absorb(scratch, for: request.key.profile, into: &writer) }
        return outcome
    }
}

/// One caller's edits of one document, as the writer receives them.
struct EditRequest: Sendable {
    var key: DocumentKey
    var catalog: Catalog?
    var edits: [TabBarEdit]
}

extension Catalog {
    /// A catalog with no tabs, for edits that need none (a reset).
    static let empty: Catalog = try! Catalog(tabs: [])
}
