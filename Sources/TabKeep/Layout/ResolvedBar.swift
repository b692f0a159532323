/// A document read through a catalog: the winning entry of every current tab (renames read through),
/// the resolved order and the badge counters. `Layout` and the edits are both computed from it.
///
/// Positions and flags of catalog tabs are held in arrays indexed by catalog position, found by
/// walking the document's sorted entries alongside the catalog's ids in byte order, so the read
/// path hashes no tab id.
struct ResolvedBar {
    let catalog: Catalog
    /// The winning live position, customizable and hidden flag of each catalog tab, by catalog index.
    private var states: [TabState]
    var texts: [TabID: String] = [:]
    var resets: [TabID: (count: Int64, seen: [ReplicaID: Int64], sequences: [ReplicaID: UInt64])] = [:]
    var totals: [TabID: [ReplicaID: Int64]] = [:]
    /// The badge totals the clear had seen, by tab and replica, with the sequence that wrote each.
    var marks: [TabID: [ReplicaID: (total: Int64, sequence: UInt64)]] = [:]
    /// The sequence of each live badge total's dot.
    var totalSequences: [TabID: [ReplicaID: UInt64]] = [:]
    var storedSelection: Selection = .none
    /// Non-fixed catalog tabs, hidden ones included, in resolved order.
    var movableOrder: [TabID] = []
    /// Where each tab of `movableOrder` stands, in the same order.
    var items: [OrderItem] = []
    /// The tab of each slot: the non-fixed catalog tabs in catalog order.
    var slots: [TabID] = []
    /// Whether the order came from first-format keys alone (a document no edit has moved since).
    var isFirstFormatOrder = false
    /// Shown tabs, fixed ones at their catalog index.
    var shown: [TabID] = []
    /// Hidden catalog tabs in resolved order.
    var hiddenTabs: [TabID] = []
    /// The catalog index of each tab of `shown`.
    private var shownIndices: [Int] = []
    /// With extent `.badges` and a catalog without renames: that tab's counters, and nothing else
    /// is read (the dictionaries above stay empty, `states` too).
    private var oneTab: (tab: TabID, counters: BadgeCounters)?

    /// A bar of `catalog` that the document has said nothing about yet: fill it, then ``resolve()``.
    init(catalog: Catalog) {
        self.catalog = catalog
        states = Array(repeating: TabState(), count: catalog.tabs.count)
    }

    /// How much of a bar an edit reads. Edits that need no order build less than all of it: the
    /// fast path of ``TabBarDocument/apply(_:catalog:by:)``; `.all` is its slow twin, and what
    /// `Layout` reads.
    enum Extent: Equatable {
        /// The catalog alone: no entry is read, no order resolved (flags, badge text, a clear).
        case catalogOnly
        /// The badge counters of one tab (as named, renames read through), and nothing else: only
        /// the badge and clear entries are read, no order resolved.
        case badges(TabID)
        /// Every entry, and the resolved order.
        case all
    }

    init(document: TabBarDocument, catalog: Catalog, extent: Extent = .all) {
        if case .badges(let tab) = extent, catalog.renames.isEmpty {
            self.init(catalog: catalog, tab: tab, counters: BadgeCounters(document: document, tab: tab))
            return
        }
        self.init(catalog: catalog)
        let badgeTab: TabID?
        switch extent {
        case .catalogOnly: return
        // Entries are compared as renamed to current ids, so the tab is too (an edit may name an old id).
        case .badges(let tab): badgeTab = catalog.current(tab)
        case .all: badgeTab = nil
        }
        var winners: [Entry.Key: Entry] = [:]
        let renaming = !catalog.renames.isEmpty
        var cursor = CatalogCursor(catalog: catalog)
        func index(of tab: TabID, kind: EntryKind) -> Int? {
            renaming ? catalog.catalogIndexOfTab[tab] : cursor.index(of: tab, kind: kind)
        }
        // Entries are sorted by kind first: the badge kinds and the clear are the document's tail.
        let start = badgeTab == nil ? 0 : document.firstIndex(ofKindAtLeast: .badgeReset)
        for entry in document.storage[start...] where entry.value != .removed {
            var key = entry.key
            if renaming, let tab = key.tab {
                let current = catalog.current(tab)
                if current != tab { key = key.with(tab: current) }
            }
            if let badgeTab, let tab = key.tab, tab != badgeTab { continue }
            if renaming, key.tab != nil {
                // Old and new id both written: the newer entry wins, deterministically.
                if let existing = winners[key], existing.beats(entry) { continue }
            }
            switch (key, entry.value) {
            case (.position(let tab), .position(let key)):
                if let index = index(of: tab, kind: .position) { states[index].position = .firstFormat(key) }
            case (.position(let tab), .place(let place)):
                if let index = index(of: tab, kind: .position) { states[index].position = .place(place) }
            case (.customizable(let tab), .flag(let flag)):
                if let index = index(of: tab, kind: .customizable) { states[index].customizable = flag }
            case (.hidden(let tab), .flag(let flag)):
                if let index = index(of: tab, kind: .hidden) { states[index].hidden = flag }
            case (.selection, .selection(let selection)):
                storedSelection = selection
            case (.badgeText(let tab), .text(let text)):
                texts[tab] = text
            case (.badgeReset(let tab), .badgeReset(let count, let seen, let sequences)):
                resets[tab] = (count, seen, sequences)
            case (.badgeIncrements(let tab, let replica), .badgeTotal(let total)):
                totals[tab, default: [:]][replica] = total
                totalSequences[tab, default: [:]][replica] = entry.dot.sequence
            case (.cleared, .context(_, let badges)):
                for mark in badges {
                    let tab = renaming ? catalog.current(mark.tab) : mark.tab
                    marks[tab, default: [:]][mark.replica] = (mark.total, mark.sequence)
                }
            default:
                continue
            }
            if renaming { winners[key] = entry }
        }
        if badgeTab == nil { resolveOrder() }
    }

    /// A bar that knows only `tab`'s badge counters: no flag, position or order is read.
    private init(catalog: Catalog, tab: TabID, counters: BadgeCounters) {
        self.catalog = catalog
        states = []
        oneTab = (tab, counters)
    }

    /// Records the live position entry of the catalog tab at `index`.
    mutating func setPosition(_ position: StoredPosition, at index: Int) {
        states[index].position = position
    }

    /// Records the live customizable flag of the catalog tab at `index`.
    mutating func setCustomizable(_ flag: Bool, at index: Int) {
        states[index].customizable = flag
    }

    /// Records the live hidden flag of the catalog tab at `index`.
    mutating func setHidden(_ flag: Bool, at index: Int) {
        states[index].hidden = flag
    }

    /// Resolves the order once every entry is recorded.
    mutating func resolve() {
        resolveOrder()
    }

    /// The total `replica` has counted for `tab` so far: its live entry, else what the clear saw of it.
    func currentTotal(_ tab: TabID, _ replica: ReplicaID) -> Int64 {
        if let counters = counters(of: tab) { return counters.currentTotal(replica) }
        return totals[tab]?[replica] ?? marks[tab]?[replica]?.total ?? 0
    }

    /// Every replica's current total for `tab` with the sequence that wrote it (what a badge set
    /// records as seen).
    func currentTotals(_ tab: TabID) -> (totals: [ReplicaID: Int64], sequences: [ReplicaID: UInt64]) {
        if let counters = counters(of: tab) { return counters.currentTotals() }
        var result = (marks[tab] ?? [:]).mapValues(\.total)
        var sequences = (marks[tab] ?? [:]).mapValues(\.sequence)
        for (replica, total) in totals[tab] ?? [:] {
            result[replica] = total
            sequences[replica] = totalSequences[tab]?[replica]
        }
        return (result, sequences)
    }

    func isHidden(_ tab: Catalog.Tab) -> Bool {
        isHidden(tab, at: catalog.catalogIndexOfTab[tab.id])
    }

    func isCustomizable(_ tab: Catalog.Tab) -> Bool {
        isCustomizable(tab, at: catalog.catalogIndexOfTab[tab.id])
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

    /// Resolves the order of the non-fixed tabs, then puts fixed tabs at their catalog index.
    private mutating func resolveOrder() {
        let tabs = catalog.tabs
        var movable: [Int] = []
        movable.reserveCapacity(tabs.count)
        for index in tabs.indices where tabs[index].placement != .fixed { movable.append(index) }
        var hasFirstFormat = false
        var hasPlace = false
        for catalogIndex in movable {
            switch states[catalogIndex].position {
            case .firstFormat: hasFirstFormat = true
            case .place: hasPlace = true
            case nil: break
            }
        }
        let order: [Int]
        if hasFirstFormat && !hasPlace {
            isFirstFormatOrder = true
            order = firstFormatOrder(movable)
        } else if hasPlace || hasFirstFormat {
            order = slotOrder(movable)
        } else {
            order = movable
            items = movable.indices.map { OrderItem(gap: $0 + 1, key: nil) }
        }
        slots = movable.map { tabs[$0].id }
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

    /// Slots in catalog order: each unmoved tab in its own slot, and after each slot the tabs moved
    /// into its gap, by (key, id). Gap 0 comes before the first slot; first-format keys stand there.
    private mutating func slotOrder(_ movable: [Int]) -> [Int] {
        let tabs = catalog.tabs
        var slotOfTab: [TabID: Int] = [:]
        slotOfTab.reserveCapacity(movable.count)
        for (slot, catalogIndex) in movable.enumerated() { slotOfTab[tabs[catalogIndex].id] = slot }
        func slot(_ tab: TabID?) -> Int? { tab.flatMap { slotOfTab[catalog.current($0)] } }
        var gaps = [[(key: [UInt8], index: Int, place: TabPlace?)]](repeating: [], count: movable.count + 1)
        var moved = [Bool](repeating: false, count: movable.count)
        for (slotIndex, catalogIndex) in movable.enumerated() {
            let gap: Int
            let key: [UInt8]
            var recorded: TabPlace?
            switch states[catalogIndex].position {
            case nil:
                continue
            case .firstFormat(let firstFormatKey):
                (gap, key) = (0, firstFormatKey)
            case .place(let place):
                recorded = place
                if place.after == nil {
                    gap = 0
                } else if let after = slot(place.after) {
                    gap = after + 1
                } else if place.next == nil {
                    gap = movable.count
                } else if let next = slot(place.next) {
                    gap = next
                } else {
                    // Neither neighbour exists in this catalog: the tab stays in its slot.
                    continue
                }
                key = place.key
            }
            moved[slotIndex] = true
            gaps[gap].append((key, catalogIndex, recorded))
        }
        var order: [Int] = []
        order.reserveCapacity(movable.count)
        items.reserveCapacity(movable.count)
        func emit(gap: Int) {
            guard !gaps[gap].isEmpty else { return }
            gaps[gap].sort { lhs, rhs in
                lhs.key == rhs.key
                    ? tabs[lhs.index].id < tabs[rhs.index].id : lhs.key.lexicographicallyPrecedes(rhs.key)
            }
            for member in gaps[gap] {
                order.append(member.index)
                items.append(OrderItem(gap: gap, key: member.key, place: member.place))
            }
        }
        emit(gap: 0)
        for (slotIndex, catalogIndex) in movable.enumerated() {
            if !moved[slotIndex] {
                order.append(catalogIndex)
                items.append(OrderItem(gap: slotIndex + 1, key: nil))
            }
            emit(gap: slotIndex + 1)
        }
        return order
    }

    /// The first format's order: positioned tabs by (key, id); a tab without a position right after
    /// its catalog predecessor (chained), else first.
    private mutating func firstFormatOrder(_ movable: [Int]) -> [Int] {
        let tabs = catalog.tabs
        var positioned: [(key: [UInt8], tab: TabID, index: Int)] = []
        positioned.reserveCapacity(movable.count)
        for (index, catalogIndex) in movable.enumerated() {
            if case .firstFormat(let key) = states[catalogIndex].position {
                positioned.append((key, tabs[catalogIndex].id, index))
            }
        }
        positioned.sort { lhs, rhs in
            lhs.key == rhs.key ? lhs.tab < rhs.tab : lhs.key.lexicographicallyPrecedes(rhs.key)
        }
        var order: [Int] = []
        order.reserveCapacity(movable.count)
        func appendFollowers(after index: Int) {
            var next = index + 1
            while next < movable.count, states[movable[next]].position == nil {
                order.append(movable[next])
                items.append(OrderItem(gap: next + 1, key: nil))
                next += 1
            }
        }
        appendFollowers(after: -1)
        for item in positioned {
            order.append(movable[item.index])
            items.append(OrderItem(gap: 0, key: item.key))
            appendFollowers(after: item.index)
        }
        return order
    }

    /// count = max(0, reset.count + Σ over replicas with a total (total − reset.seen[replica])).
    func badgeCount(_ tab: TabID) -> Int64 {
        max(0, rawBadgeCount(tab))
    }

    /// The sum before clamping: below zero after concurrent decrements that together took too much.
    ///
    /// A live badge set counts from what it had seen; without one, each replica counts from the total
    /// the clear had seen, so increments a clear covered never come back.
    func rawBadgeCount(_ tab: TabID) -> Int64 {
        if let counters = counters(of: tab) { return counters.rawCount }
        var count = resets[tab]?.count ?? 0
        for (replica, total) in totals[tab] ?? [:] { count += total - badgeBaseline(tab, replica) }
        return count
    }

    /// The one tab's counters of a `.badges` bar; nil for a bar that read every tab.
    private func counters(of tab: TabID) -> BadgeCounters? {
        guard let oneTab else { return nil }
        precondition(oneTab.tab == tab, "a bar read for \(oneTab.tab)'s badge was asked about \(tab)")
        return oneTab.counters
    }

    /// The total a replica's increments to `tab` count from: what the live badge set had seen of
    /// them, or what a clear had seen when that is more (by the sequence that wrote it) or the set saw
    /// none; without a set, what the clear had seen; else 0.
    func badgeBaseline(_ tab: TabID, _ replica: ReplicaID) -> Int64 {
        if let counters = counters(of: tab) { return counters.baseline(replica) }
        let mark = marks[tab]?[replica]
        guard let reset = resets[tab] else { return mark?.total ?? 0 }
        guard let seen = reset.seen[replica] else { return mark?.total ?? 0 }
        if let mark, let sequence = reset.sequences[replica], mark.sequence > sequence { return mark.total }
        return seen
    }

    var layout: Layout {
        var layout = Layout(order: shown, hidden: hiddenTabs)
        let tabs = catalog.tabs
        var isShown = [Bool](repeating: false, count: tabs.count)
        for (id, catalogIndex) in zip(shown, shownIndices) {
            isShown[catalogIndex] = true
            if isCustomizable(tabs[catalogIndex], at: catalogIndex) { layout.customizable.append(id) }
        }
        func shows(_ tab: TabID) -> Bool { catalog.catalogIndexOfTab[tab].map { isShown[$0] } ?? false }
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
    var position: StoredPosition?
    var customizable: Bool?
    var hidden: Bool?
}

/// A tab's live position entry: a first-format key, or a place.
enum StoredPosition: Equatable {
    case firstFormat([UInt8])
    case place(TabPlace)
}

/// Where one tab of the resolved order stands: its gap (0 before the first slot, s + 1 after slot
/// s), and its key there; an unmoved tab heads the gap after its own slot and has no key.
struct OrderItem: Equatable {
    var gap: Int
    var key: [UInt8]?
    /// The place as stored, for a moved tab (nil for an unmoved one or a first-format key).
    var place: TabPlace? = nil

    /// Whether `self` comes before `other` in the resolved order (ties broken by tab id outside).
    func precedes(_ other: OrderItem) -> Bool? {
        if gap != other.gap { return gap < other.gap }
        switch (key, other.key) {
        case (nil, nil): return nil
        case (nil, _): return true
        case (_, nil): return false
        case (let mine?, let theirs?): return mine == theirs ? nil : mine.lexicographicallyPrecedes(theirs)
        }
    }
}

/// Finds catalog indices for a kind's run of entries, which the document keeps sorted by tab id
/// bytes: one forward walk over the catalog's ids in byte order, restarting at a new kind (or if
/// the ids ever go backwards).
private struct CatalogCursor {
    let catalog: Catalog
    var kind: EntryKind?
    var next = 0
    var previous: TabID?

    init(catalog: Catalog) {
        self.catalog = catalog
    }

    mutating func index(of tab: TabID, kind: EntryKind) -> Int? {
        if kind != self.kind || previous.map({ !($0 < tab) }) ?? false {
            self.kind = kind
            next = 0
        }
        previous = tab
        let sorted = catalog.catalogIndicesInIDOrder
        while next < sorted.count {
            let order = IdentifierRules.compare(catalog.tabs[sorted[next]].id.rawValue, tab.rawValue)
            if order > 0 { return nil }
            next += 1
            if order == 0 { return sorted[next - 1] }
        }
        return nil
    }
}
