/// A document read through a catalog: the winning entry of every current tab (renames read through),
/// the resolved order and the badge counters. `Layout` and the edits are both computed from it.
struct ResolvedBar {
    let catalog: Catalog
    /// The winning live entry per key, keyed by the current (renamed) tab id.
    var positions: [TabID: Entry] = [:]
    var customizableFlags: [TabID: Bool] = [:]
    var hiddenFlags: [TabID: Bool] = [:]
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

    init(document: TabBarDocument, catalog: Catalog) {
        self.catalog = catalog
        var winners: [Entry.Key: Entry] = [:]
        let renaming = !catalog.renames.isEmpty
        for entry in document.storage where entry.value != .removed {
            var key = entry.key
            if renaming, let tab = key.tab {
                let current = catalog.current(tab)
                if current != tab { key = key.with(tab: current) }
                // Old and new id both written: the newer entry wins, deterministically.
                if let existing = winners[key], existing.beats(entry) { continue }
            }
            switch (key, entry.value) {
            case (.position(let tab), _):
                positions[tab] = entry
            case (.customizable(let tab), .flag(let flag)):
                customizableFlags[tab] = flag
            case (.hidden(let tab), .flag(let flag)):
                hiddenFlags[tab] = flag
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
        if case .position(let key)? = positions[tab]?.value { return key }
        return nil
    }

    func isHidden(_ tab: Catalog.Tab) -> Bool {
        switch tab.placement {
        case .fixed, .movable: false
        case .default, .optional: hiddenFlags[tab.id] ?? tab.hiddenByDefault
        }
    }

    func isCustomizable(_ tab: Catalog.Tab) -> Bool {
        tab.placement == .fixed ? false : customizableFlags[tab.id] ?? tab.customizableByDefault
    }

    /// Positioned tabs by (key, id); a tab without a position right after its catalog predecessor
    /// (chained), else first; then fixed tabs at their catalog index of the shown order.
    private mutating func resolveOrder() {
        let movable = catalog.tabs.filter { $0.placement != .fixed }
        var positioned: [(key: [UInt8], tab: TabID, index: Int)] = []
        for (index, tab) in movable.enumerated() {
            if let key = key(tab.id) { positioned.append((key, tab.id, index)) }
        }
        positioned.sort { lhs, rhs in
            lhs.key == rhs.key ? lhs.tab < rhs.tab : lhs.key.lexicographicallyPrecedes(rhs.key)
        }
        var order: [TabID] = []
        order.reserveCapacity(movable.count)
        func appendFollowers(after index: Int) {
            var next = index + 1
            while next < movable.count, key(movable[next].id) == nil {
                order.append(movable[next].id)
                next += 1
            }
        }
        appendFollowers(after: -1)
        for item in positioned {
            order.append(item.tab)
            appendFollowers(after: item.index)
        }
        movableOrder = order
        for id in order {
            if let tab = catalog.tab(id), isHidden(tab) {
                hiddenTabs.append(id)
            } else {
                shown.append(id)
            }
        }
        for (index, tab) in catalog.tabs.enumerated() where tab.placement == .fixed {
            shown.insert(tab.id, at: min(index, shown.count))
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
        for id in shown {
            if let tab = catalog.tab(id), isCustomizable(tab) { layout.customizable.append(id) }
            if !totals.isEmpty || !resets.isEmpty {
                let count = badgeCount(id)
                if count > 0 { layout.badges[id] = Int(count) }
            }
            if let text = texts[id] { layout.badgeTexts[id] = text }
        }
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
