import LMDBKit

/// The catalogs apps register, so tools resolve layouts without the app.
extension TabKeepStore {
    // MARK: Catalogs

    /// Registers `catalog` as the app's current catalog for `bar`, so tools resolve layouts without the app.
    ///
    /// When it differs from the catalog registered before, the layout stored beside each of the
    /// bar's documents is resolved against it again in the same transaction (a walk of the
    /// store's documents), so launch reads keep taking them after an app update changes its tabs.
    public func registerCatalog(_ catalog: Catalog, for bar: BarID = .main) throws(TabKeepError) {
        try write { txn in try putCatalog(txn, catalog, for: bar) }
    }

    /// Puts `catalog` as `bar`'s registered catalog in the write transaction `txn` and, when its
    /// bytes differ from the record there before, rewrites the bar's layout records against it.
    func putCatalog(_ txn: borrowing Transaction, _ catalog: Catalog, for bar: BarID) throws {
        let key = Array(bar.rawValue.utf8)
        let encoded = catalog.encoded()
        let unchanged = try txn.withValue(catalogsDatabase, key: key) { bytes in
            bytes.map { $0.elementsEqual(encoded) } ?? false
        }
        try txn.put(catalogsDatabase, key: key, value: encoded)
        if !unchanged { try refreshLayoutRecords(txn, bar: bar) }
    }

    /// Documents gathered per pass of ``refreshLayoutRecords(_:bar:)``: what the walk holds at once.
    static let layoutRefreshBatch = 512

    /// Writes the layout record of every document of `bar` again, resolved against the catalog
    /// registered for it in `txn` (or deletes it where none is stored, as a write of the document
    /// would). The walk goes in batches, resuming at the first document a batch left, so it holds
    /// at most ``layoutRefreshBatch`` documents whatever the store's size.
    private func refreshLayoutRecords(_ txn: borrowing Transaction, bar: BarID) throws {
        guard spaces.tagged else { return }
        var from: [UInt8]?
        repeat {
            var batch: [(key: DocumentKey, bytes: [UInt8])] = []
            var next: [UInt8]?
            try spaces.forEach(txn, Records.Tag.document, from: from) { key, value in
                guard batch.count < Self.layoutRefreshBatch else {
                    next = Array(key)
                    return false
                }
                let document = try spaces.documentKey(from: key)
                if document.bar == bar { batch.append((document, Array(value))) }
                return true
            }
            for (key, bytes) in batch {
                if let record = try layoutRecord(txn, bar, of: bytes) {
                    try txn.put(documents, key: spaces.layoutKey(key), value: record)
                } else {
                    _ = try txn.delete(documents, key: spaces.layoutKey(key))
                }
            }
            from = next
        } while from != nil
    }

    /// The catalog last registered for `bar`, or nil.
    public func catalog(for bar: BarID = .main) throws(TabKeepError) -> Catalog? {
        return try read { txn in try storedCatalogIfAny(txn, bar: bar) }
    }

    /// Every registered catalog, by bar, in key order.
    public func catalogs() throws(TabKeepError) -> [(bar: BarID, catalog: Catalog)] {
        return try read { txn in
            var result: [(bar: BarID, catalog: Catalog)] = []
            try txn.forEach(catalogsDatabase) { key, value in
                let bar = try BarID(String(decoding: key, as: UTF8.self))
                do throws(DocumentDecodingError) {
                    result.append((bar, try Catalog(decoding: value)))
                } catch {
                    throw TabKeepError.corruptCatalog(bar, error)
                }
                return true
            }
            return result
        }
    }

    func storedCatalogIfAny(_ txn: borrowing Transaction, bar: BarID) throws -> Catalog? {
        try txn.withValue(catalogsDatabase, key: Array(bar.rawValue.utf8)) {
            bytes throws(TabKeepError) -> Catalog? in
            guard let bytes else { return nil }
            do throws(DocumentDecodingError) {
                return try Catalog(decoding: bytes)
            } catch {
                throw .corruptCatalog(bar, error)
            }
        }
    }

    func storedCatalog(_ txn: borrowing Transaction, bar: BarID) throws -> Catalog {
        guard let catalog = try storedCatalogIfAny(txn, bar: bar) else { throw TabKeepError.noCatalog(bar) }
        return catalog
    }
}
