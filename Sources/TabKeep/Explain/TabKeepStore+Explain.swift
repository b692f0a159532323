import LMDBKit

extension TabKeepStore {
    /// Why `profile`'s `bar` looks the way it does: for every tab of the layout resolved against
    /// `catalog` (or the catalog registered for the bar), where its place, flags and badge come from
    /// (which device wrote each, and when), the selection, and the clears the document holds.
    ///
    /// Returns nil when the store holds nothing for the bar (never edited here, never synced in).
    /// One read transaction: the explanation and its layout are of the same moment.
    ///
    /// ```swift
    /// if let explanation = try store.explain(try ProfileID("alice")) {
    ///     print(explanation.tab(try TabID("inbox"))?.place as Any)
    /// }
    /// ```
    public func explain(_ profile: ProfileID, bar: BarID = .main, catalog: Catalog? = nil)
        throws(TabKeepError) -> BarExplanation?
    {
        let key = DocumentKey(profile: profile, bar: bar)
        return try read { txn in
            guard let document = try loadDocument(txn, key) else { return nil }
            let resolvedCatalog = try catalog ?? storedCatalog(txn, bar: bar)
            return BarExplanation(
                profile: profile, bar: bar, document: document, catalog: resolvedCatalog,
                thisDevice: replicaID)
        }
    }
}
