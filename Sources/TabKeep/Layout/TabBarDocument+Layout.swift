extension TabBarDocument {
    /// What the user sees with `catalog`: order, hidden tabs, customizable subset, selection and badges.
    public func layout(catalog: Catalog) -> Layout {
        ResolvedBar(document: self, catalog: catalog).layout
    }
}
