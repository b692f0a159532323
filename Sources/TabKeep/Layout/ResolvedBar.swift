/// A document read through a catalog: the winning entry of every current tab (renames read through),
/// the resolved order and the badge counters. `Layout` and the edits are both computed from it.
///
/// Positions and flags of catalog tabs are held in arrays indexed by catalog position, found by
/// walking the document's sorted entries alongside the catalog's ids in byte order, so the read
/// path hashes no tab id.
struct ResolvedBar {
    let catalog: Catalog
    /// The winning live position key, customizable and hidden flag of each catalog tab, by catalog index.
    private var states: [TabState]
    /// Position keys of tabs the catalog does not list, keyed by the current (renamed) tab id.
    private var otherKeys: [TabID: [UInt8]] = [:]
    var texts: [TabID: String] = [:]
    var resets: [TabID: (count: Int64, seen: [ReplicaID: Int64])] = [:]
    var totals: [TabID: [ReplicaID: Int64]] = [:]
    var storedSelection: Selection = .none
    /// Non-fixed catalog tabs, hidden ones included, in resolved order.
    var movableOrder: [TabID] = []
    /// Shown tabs, fixed ones at their catalog index.
    var shown: [TabID] = []
    /// Hidden catalog tabs in resolved order.
    var hiddenTabs: [TabID] = []
    /// The catalog index of each tab of `shown`.
    private var shownIndices: [Int] = []

    init(document: TabBarDocument, catalog: Catalog) {
        self.catalog = catalog
        let count = catalog.tabs.count
        states = Array(repeating: TabState(), count: count)
        var winners: [Entry.Key: Entry] = [:]
        let renaming = !catalog.renames.isEmpty
        var cursor = CatalogCursor(catalog: catalog)
        func index(of tab: TabID, kind: UInt8) -> Int? {
            renaming ? catalog.indexByTab[tab] : cursor.index(of: tab, kind: kind)
        }
        for entry in document.storage where entry.value != .removed {
            var key = entry.key
            if renaming, let tab = key.tab {
                let current = catalog.current(tab)
                if current != tab { key = key.with(tab: current) }
                // Old and new id both written: the newer entry wins, deterministically.
                if let existing = winners[key], existing.beats(entry) { continue }
            }
            switch (key, entry.value) {
            case (.position(let tab), let value):
                var bytes: [UInt8]?
                if case .position(let position) = value { bytes = position }
                if let index = index(of: tab, kind: 0) {
                    states[index].key = bytes
                } else {
                    otherKeys[tab] = bytes
                }
            case (.customizable(let tab), .flag(let flag)):
                if let index = index(of: tab, kind: 1) { states[index].customizable = flag }
            case (.hidden(let tab), .flag(let flag)):
                if let index = index(of: tab, kind: 2) { states[index].hidden = flag }
            case (.selection, .selection(let selection)):
                storedSelection = selection
            case (.badgeText(let tab), .text(let text)):
                texts[tab] = text
            case (.badgeReset(let tab), .badgeReset(let count, let seen)):
                resets[tab] = (count, seen)
            case (.badgeIncrements(let tab, let replica), .badgeTotal(let total)):
                totals[tab, default: [:]][replica] = total
            default:
                continue
            }
            if renaming { winners[key] = entry }
        }
        resolveOrder()
    }

    /// The effective position key of a current tab.
    func key(_ tab: TabID) -> [UInt8]? {
        if let index = catalog.indexByTab[tab] { return states[index].key }
        return otherKeys[tab]
    }

    func isHidden(_ tab: Catalog.Tab) -> Bool {
        isHidden(tab, at: catalog.indexByTab[tab.id])
    }

    func isCustomizable(_ tab: Catalog.Tab) -> Bool {
        isCustomizable(tab, at: catalog.indexByTab[tab.id])
    }

    private func isHidden(_ tab: Catalog.Tab, at index: Int?) -> Bool {
        switch tab.placement {
        case .fixed, .movable: false
        case .default, .optional: index.flatMap { states[$0].hidden } ?? tab.hiddenByDefault
        }
    }

    private func isCustomizable(_ tab: Catalog.Tab, at index: Int?) -> Bool {
        tab.placement == .fixed
            ? false : index.flatMap { states[$0].customizable } ?? tab.customizableByDefault
    }

    /// Positioned tabs by (key, id); a tab without a position right after its catalog predecessor
    /// (chained), else first; then fixed tabs at their catalog index of the shown order.
    private mutating func resolveOrder() {
        let tabs = catalog.tabs
        var movable: [Int] = []
        movable.reserveCapacity(tabs.count)
        for index in tabs.indices where tabs[index].placement != .fixed { movable.append(index) }
        var positioned: [(key: [UInt8], tab: TabID, index: Int)] = []
        positioned.reserveCapacity(movable.count)
        for (index, catalogIndex) in movable.enumerated() {
            if let key = states[catalogIndex].key { positioned.append((key, tabs[catalogIndex].id, index)) }
        }
        positioned.sort { lhs, rhs in
            lhs.key == rhs.key ? lhs.tab < rhs.tab : lhs.key.lexicographicallyPrecedes(rhs.key)
        }
        var order: [Int] = []
        order.reserveCapacity(movable.count)
        func appendFollowers(after index: Int) {
            var next = index + 1
            while next < movable.count, states[movable[next]].key == nil {
                order.append(movable[next])
                next += 1
            }
        }
        appendFollowers(after: -1)
        for item in positioned {
            order.append(movable[item.index])
            appendFollowers(after: item.index)
        }
        movableOrder.reserveCapacity(order.count)
        shown.reserveCapacity(tabs.count)
        shownIndices.reserveCapacity(tabs.count)
        for catalogIndex in order {
            let tab = tabs[catalogIndex]
            movableOrder.append(tab.id)
            if isHidden(tab, at: catalogIndex) {
                hiddenTabs.append(tab.id)
            } else {
                shown.append(tab.id)
                shownIndices.append(catalogIndex)
            }
        }
        for (index, tab) in tabs.enumerated() where tab.placement == .fixed {
            let at = min(index, shown.count)
            shown.insert(tab.id, at: at)
            shownIndices.insert(index, at: at)
        }
    }

    /// count = max(0, reset.count + Σ over replicas with a total (total − reset.seen[replica])).
    func badgeCount(_ tab: TabID) -> Int64 {
        max(0, rawBadgeCount(tab))
    }

    /// The sum before clamping: below zero after concurrent decrements that together took too much.
    func rawBadgeCount(_ tab: TabID) -> Int64 {
        let reset = resets[tab]
        var count = reset?.count ?? 0
        for (replica, total) in totals[tab] ?? [:] {
            count += total - (reset?.seen[replica] ?? 0)
        }
        return count
    }

    var layout: Layout {
        var layout = Layout(order: shown, hidden: hiddenTabs)
        let tabs = catalog.tabs
        var isShown = [Bool](repeating: false, count: tabs.count)
        for (id, catalogIndex) in zip(shown, shownIndices) {
            isShown[catalogIndex] = true
            if isCustomizable(tabs[catalogIndex], at: catalogIndex) { layout.customizable.append(id) }
        }
        func shows(_ tab: TabID) -> Bool { catalog.indexByTab[tab].map { isShown[$0] } ?? false }
        // Badges and texts are few: look their tabs up, not every shown tab in them.
        for tab in totals.keys where shows(tab) {
            let count = badgeCount(tab)
            if count > 0 { layout.badges[tab] = Int(count) }
        }
        for tab in resets.keys where totals[tab] == nil && shows(tab) {
            let count = badgeCount(tab)
            if count > 0 { layout.badges[tab] = Int(count) }
        }
        for (tab, text) in texts where shows(tab) { layout.badgeTexts[tab] = text }
        switch storedSelection {
        case .more: layout.selection = .more
        case .none: layout.selection = .none
        case .tab(let tab):
            let current = catalog.current(tab)
            layout.selection = catalog.tab(current).map { !isHidden($0) } == true ? .tab(current) : .none
        }
        return layout
    }
}

/// What the document says about one catalog tab.
private struct TabState {
    var key: [UInt8]?
    var customizable: Bool?
    var hidden: Bool?
}

/// Finds catalog indices for a kind's run of entries, which the document keeps sorted by tab id
/// bytes: one forward walk over the catalog's ids in byte order, restarting at a new kind (or if
/// the ids ever go backwards).
private struct CatalogCursor {
    let catalog: Catalog
    var kind = UInt8.max
    var next = 0
    var previous: TabID?

    init(catalog: Catalog) {
        self.catalog = catalog
    }

    mutating func index(of tab: TabID, kind: UInt8) -> Int? {
        if kind != self.kind || previous.map({ !($0 < tab) }) ?? false {
            self.kind = kind
            next = 0
        }
        previous = tab
        let sorted = catalog.indicesByID
        while next < sorted.count {
            let order = IdentifierRules.compare(catalog.tabs[sorted[next]].id.rawValue, tab.rawValue)
            if order > 0 { return nil }
            next += 1
            if order == 0 { return sorted[next - 1] }
        }
        return nil
    }
}
