import LMDBKit

/// The catalogs apps register, so tools resolve layouts without the app.
extension TabKeepStore {
    // MARK: Catalogs

    /// Registers `catalog` as the app's current catalog for `bar`, so tools resolve layouts without the app.
    public func registerCatalog(_ catalog: Catalog, for bar: BarID = .main) throws(TabKeepError) {
        try write { txn in
            try txn.put(catalogsDatabase, key: Array(bar.rawValue.utf8), value: catalog.encoded())
        }
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
