extension TabBarControllerModel {
    /// Opens a customizing session, as the Edit button of More does. Tells the delegate
    /// will-begin with the current list.
    public func beginCustomizing() throws(TabBarError) {
        guard !isCustomizing else { throw TabBarError.customizing }
        isCustomizing = true
        orderWhenCustomizingBegan = tabIDs
        delegate?.tabBarController(self, willBeginCustomizing: tabIDs)
    }

    /// The user drags `tab` to `index` of the list during customizing. Only customizable tabs move:
    /// `tab` must be customizable and so must the tab now at `index`; the others keep their places.
    public func moveTab(_ tab: TabID, to index: Int) throws(TabBarError) {
        guard isCustomizing else { throw TabBarError.notCustomizing }
        guard let from = tabIDs.firstIndex(of: tab) else { throw TabBarError.unknownTab(tab) }
        guard tabIDs.indices.contains(index) else {
            throw TabBarError.indexOutOfRange(index, count: tabIDs.count)
        }
        let movable = Set(customizableTabIDs)
        guard movable.contains(tab) else { throw TabBarError.notCustomizable(tab) }
        guard movable.contains(tabIDs[index]) else { throw TabBarError.notCustomizable(tabIDs[index]) }
        // Permute the customizable tabs among their own slots, so fixed tabs never shift.
        let slots = tabIDs.indices.filter { movable.contains(tabIDs[$0]) }
        var order = slots.map { tabIDs[$0] }
        order.remove(at: slots.firstIndex(of: from)!)
        order.insert(tab, at: slots.firstIndex(of: index)!)
        for (slot, moved) in zip(slots, order) {
            tabIDs[slot] = moved
        }
        customizableTabIDs = tabIDs.filter(movable.contains)  // documented as in list order
    }

    /// Closes the session: tells the delegate will-end(changed), then did-end(changed), and reports
    /// ``TabBarHostEvent/customizingEnded(changed:order:)``. `changed` is whether the order differs from
    /// the one at ``beginCustomizing()``.
    public func endCustomizing() throws(TabBarError) {
        guard isCustomizing else { throw TabBarError.notCustomizing }
        let changed = tabIDs != orderWhenCustomizingBegan
        delegate?.tabBarController(self, willEndCustomizing: tabIDs, changed: changed)
        isCustomizing = false
        orderWhenCustomizingBegan = []
        delegate?.tabBarController(self, didEndCustomizing: tabIDs, changed: changed)
        reportCustomizingEnded(changed: changed)
    }
}
