extension TabBarDocument {
    /// Applies one user edit as `replica`, taking a dot and stamp from it for every entry written.
    ///
    /// Order-dependent edits resolve against `catalog`. The replica's clock first observes the
    /// document's newest stamp, so the edit beats everything this replica has seen. On error neither
    /// the document nor the replica changes.
    package mutating func apply(_ edit: TabBarEdit, catalog: Catalog, by replica: inout Replica)
        throws(EditError)
    {
        try apply(edit, catalog: catalog, by: &replica, path: .fast)
    }

    /// The same, by the `path` given: `.slow` is the fast path's twin, which the differential
    /// tests compare it with (the same document, replica and error for every edit).
    package mutating func apply(
        _ edit: TabBarEdit, catalog: Catalog, by replica: inout Replica, path: EditPath
    ) throws(EditError) {
        var writer = replica
        writer.clock.observe(maxStamp)
        // Made in place: a resolved bar is a dozen arrays and dictionaries, each copy retains them all.
        var plan = EditPlan(
            document: self,
            bar: ResolvedBar(document: self, catalog: catalog, extent: path == .fast ? edit.extent : .all),
            replica: writer)
        switch edit {
        case .move(let tab, let index):
            try plan.move(tab, to: index)
        case .reorder(let order):
            try plan.reorder(order)
        case .setCustomizable(let tabs):
            try plan.setCustomizable(tabs)
        case .setCustomizableFlag(let tab, let flag):
            try plan.setCustomizable(tab, flag)
        case .setHidden(let tab, let hidden):
            try plan.setHidden(tab, hidden)
        case .select(let selection):
            try plan.select(selection)
        case .setBadge(let tab, let count):
            try plan.setBadge(tab, count)
        case .addToBadge(let tab, let delta):
            try plan.addToBadge(tab, delta)
        case .clearBadge(let tab):
            try plan.setBadge(tab, 0)
        case .setBadgeText(let tab, let text):
            try plan.setBadgeText(tab, text)
        case .reset:
            plan.reset()
        }
        if path == .fast && plan.entries.count == 1 {
            write(one: plan.entries[0])
        } else {
            write(plan.entries)
        }
        if case .reset = edit { applyContext() }
        replica = plan.replica
    }
}

/// How ``TabBarDocument/apply(_:catalog:by:path:)`` computes an edit.
package enum EditPath: Sendable {
    /// Resolves only what the edit reads (no order for a badge, flag or text edit) and writes a
    /// single entry in place.
    case fast
    /// Resolves the whole bar and merges the written entries in: the reference the fast path is
    /// tested against.
    case slow
}

extension TabBarEdit {
    /// What of the bar the edit reads: its order only for the edits that place tabs, check that a
    /// tab is shown or compare flags of shown tabs; one tab's badge counters for badge counts.
    var extent: ResolvedBar.Extent {
        switch self {
        case .move, .reorder, .setCustomizable, .select: .all
        case .setBadge(let tab, _), .addToBadge(let tab, _), .clearBadge(let tab): .badges(tab)
        case .setCustomizableFlag, .setHidden, .setBadgeText, .reset: .catalogOnly
        }
    }
}

/// The entries one edit writes, computed against the resolved bar before anything changes.
struct EditPlan {
    let document: TabBarDocument
    let bar: ResolvedBar
    var replica: Replica
    var entries: [Entry] = []

    init(document: TabBarDocument, bar: ResolvedBar, replica: Replica) {
        self.document = document
        self.bar = bar
        self.replica = replica
    }

    /// Writes one entry with a fresh stamp and dot.
    mutating func put(_ key: Entry.Key, _ value: Entry.Value) {
        let (stamp, dot) = replica.next()
        entries.append(Entry(key: key, value: value, stamp: stamp, origin: replica.id, dot: dot))
    }

    func catalogTab(_ id: TabID) throws(EditError) -> Catalog.Tab {
        guard let tab = bar.catalog.tab(id) else { throw EditError(.unknownTab(id)) }
        return tab
    }

    // MARK: Order

    mutating func move(_ id: TabID, to index: Int) throws(EditError) {
        let tab = try catalogTab(id)
        if tab.placement == .fixed { throw EditError(.fixedTab(id)) }
        guard let from = bar.shown.firstIndex(of: id) else { throw EditError(.tabNotShown(id)) }
        guard index >= 0 && index < bar.shown.count else {
            throw EditError(.indexOutOfRange(index, count: bar.shown.count))
        }
        if from == index { return }
        var order = bar.shown
        order.remove(at: from)
        order.insert(id, at: index)
        let newOrder = fixedInPlace(order)
        // Only `id` moves: put it before its new shown successor (else after its predecessor) in the
        // movable order, so hidden tabs and every other tab keep their places.
        let shownMovable = newOrder.filter { bar.catalog.tab($0)?.placement != .fixed }
        guard let shownIndex = shownMovable.firstIndex(of: id) else { return }
        var movable = bar.movableOrder.filter { $0 != id }
        if shownIndex + 1 < shownMovable.count,
            let next = movable.firstIndex(of: shownMovable[shownIndex + 1])
        {
            movable.insert(id, at: next)
        } else if shownIndex > 0, let previous = movable.firstIndex(of: shownMovable[shownIndex - 1]) {
            movable.insert(id, at: previous + 1)
        } else {
            movable.append(id)
        }
        place(movable, moving: [id])
    }

    mutating func reorder(_ order: [TabID]) throws(EditError) {
        var seen = Set<TabID>()
        for id in order {
            guard seen.insert(id).inserted else { throw EditError(.duplicateTab(id)) }
            let tab = try catalogTab(id)
            if tab.placement != .fixed && !bar.shown.contains(id) { throw EditError(.tabNotShown(id)) }
        }
        guard order.count == bar.shown.count else { throw EditError(.notAPermutation) }
        for (index, id) in bar.shown.enumerated() where bar.catalog.tab(id)?.placement == .fixed {
            if order[index] != id { throw EditError(.fixedTab(id)) }
        }
        if order == bar.shown { return }
        // Only shown tabs take part: a hidden tab was not touched by the user, so it keeps its place
        // and gets no entry, wherever the shown tabs around it go.
        place(order.filter { bar.catalog.tab($0)?.placement != .fixed }, moving: [])
    }

    /// Gives new places to as few tabs as it can so that the tabs of `order` (movable tabs, hidden
    /// ones left out or not) stand in that order: the tabs of `moving`, and those outside a longest
    /// run of the others that already stands in order. Every other tab keeps its place, and no entry
    /// is written for it.
    mutating func place(_ order: [TabID], moving: Set<TabID>) {
        var itemOf: [TabID: OrderItem] = [:]
        for (id, item) in zip(bar.movableOrder, bar.items) { itemOf[id] = item }
        // First-format documents: only keyed tabs can stay; the rest join them in gap 0.
        var candidates: [Int] = []
        for (index, id) in order.enumerated() where !moving.contains(id) {
            if bar.isFirstFormatOrder && itemOf[id]?.key == nil { continue }
            candidates.append(index)
        }
        let keptPositions = EditPlan.longestIncreasing(candidates.map { (itemOf[order[$0]]!, order[$0]) })
        var kept = [Bool](repeating: false, count: order.count)
        for position in keptPositions { kept[candidates[position]] = true }
        var placed: [(TabID, TabPlace)] = []
        var index = 0
        while index < order.count {
            if kept[index] {
                index += 1
                continue
            }
            var end = index
            while end < order.count && !kept[end] { end += 1 }
            let before = index > 0 ? itemOf[order[index - 1]] : nil
            let after = end < order.count ? itemOf[order[end]] : nil
            let gap = before?.gap ?? 0
            let high = after.flatMap { $0.gap == gap ? $0.key : nil }
            // The run takes the anchors of the tab it follows when that one has a place, so the two
            // resolve into the same gap in every catalog, also where this one shows them by fallback.
            // Else: the gap's slot, and the first tab after the run that stays unmoved (where a
            // catalog lacks the slot).
            var slot = gap == 0 ? nil : bar.slots[gap - 1]
            var next: TabID?
            if let anchor = before?.place {
                (slot, next) = (anchor.after, anchor.next)
            } else {
                for later in end..<order.count where kept[later] && itemOf[order[later]]?.key == nil {
                    next = order[later]
                    break
                }
            }
            let suffix = FractionalKey.suffix(for: replica.id, after: slot)
            guard
                let keys = FractionalKey.spread(end - index, between: before?.key, and: high, suffix: suffix)
            else {
                respace(order)
                return
            }
            for (offset, key) in keys.enumerated() {
                placed.append((order[index + offset], TabPlace(after: slot, next: next, key: key)))
            }
            index = end
        }
        for (id, place) in placed { put(.position(id), .place(place)) }
    }

    /// New, evenly spread places in gap 0 for every movable tab, in `order`: only when a gap has run
    /// out of key length, which takes thousands of moves into it. Concurrent moves may lose to it.
    mutating func respace(_ order: [TabID]) {
        let suffix = FractionalKey.suffix(for: replica.id, after: nil)
        let keys = FractionalKey.spread(order.count, between: nil, and: nil, suffix: suffix) ?? []
        for (id, key) in zip(order, keys) {
            put(.position(id), .place(TabPlace(after: nil, next: nil, key: key)))
        }
    }

    /// The shown order with fixed tabs put back at their catalog index.
    func fixedInPlace(_ order: [TabID]) -> [TabID] {
        var result = order.filter { bar.catalog.tab($0)?.placement != .fixed }
        for (index, tab) in bar.catalog.tabs.enumerated() where tab.placement == .fixed {
            result.insert(tab.id, at: min(index, result.count))
        }
        return result
    }

    /// Indices of a longest strictly increasing subsequence of resolved places, ties broken by tab
    /// id (patience sorting, O(n log n)).
    static func longestIncreasing(_ items: [(OrderItem, TabID)]) -> Set<Int> {
        func less(_ lhs: (OrderItem, TabID), _ rhs: (OrderItem, TabID)) -> Bool {
            lhs.0.precedes(rhs.0) ?? (lhs.1 < rhs.1)
        }
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: items.count)
        for index in items.indices {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if less(items[tails[middle]], items[index]) { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var result = Set<Int>()
        var index = tails.last ?? -1
        while index >= 0 {
            result.insert(index)
            index = previous[index]
        }
        return result
    }

    // MARK: Flags and selection

    mutating func setCustomizable(_ tabs: [TabID]) throws(EditError) {
        var wanted = Set<TabID>()
        for id in tabs {
            let tab = try catalogTab(id)
            if tab.placement == .fixed { throw EditError(.fixedTab(id)) }
            guard bar.shown.contains(id) else { throw EditError(.tabNotShown(id)) }
            guard wanted.insert(id).inserted else { throw EditError(.duplicateTab(id)) }
        }
        for id in bar.shown {
            guard let tab = bar.catalog.tab(id), tab.placement != .fixed else { continue }
            let flag = wanted.contains(id)
            if bar.isCustomizable(tab) != flag { put(.customizable(id), .flag(flag)) }
        }
    }

    mutating func setCustomizable(_ id: TabID, _ flag: Bool) throws(EditError) {
        let tab = try catalogTab(id)
        if tab.placement == .fixed { throw EditError(.fixedTab(id)) }
        put(.customizable(id), .flag(flag))
    }

    mutating func setHidden(_ id: TabID, _ hidden: Bool) throws(EditError) {
        let tab = try catalogTab(id)
        switch tab.placement {
        case .fixed: throw EditError(.fixedTab(id))
        case .movable: throw EditError(.notHideable(id))
        case .default, .optional: put(.hidden(id), .flag(hidden))
        }
    }

    mutating func select(_ selection: Selection) throws(EditError) {
        if case .tab(let id) = selection {
            _ = try catalogTab(id)
            guard bar.shown.contains(id) else { throw EditError(.tabNotShown(id)) }
        }
        put(.selection, .selection(selection))
    }

    // MARK: Badges

    mutating func setBadge(_ id: TabID, _ count: Int) throws(EditError) {
        _ = try catalogTab(id)
        if count < 0 { throw EditError(.negativeBadge(count)) }
        if Int64(count) > Entry.maxBadge { throw EditError(.badgeOutOfRange(count)) }
        let seen = bar.currentTotals(id)
        put(.badgeReset(id), .badgeReset(count: Int64(count), seen: seen.totals, sequences: seen.sequences))
    }

    mutating func addToBadge(_ id: TabID, _ delta: Int) throws(EditError) {
        _ = try catalogTab(id)
        guard delta.magnitude <= UInt(Entry.maxBadge) else { throw EditError(.badgeOutOfRange(delta)) }
        if delta == 0 { return }
        let raw = bar.rawBadgeCount(id)
        let current = max(0, raw)
        // A decrement takes only what the count it sees holds: 5 − 10 records −5. An increment over a
        // sum that concurrent decrements pushed below zero also makes up the deficit, so +1 shows 1.
        let effective = delta < 0 ? max(Int64(delta), -current) : Int64(delta) - min(0, raw)
        if effective == 0 { return }
        let total = bar.currentTotal(id, replica.id) + effective
        guard total.magnitude <= UInt64(Entry.maxBadge) && current + effective <= Entry.maxBadge else {
            throw EditError(.badgeOutOfRange(delta))
        }
        put(.badgeIncrements(id, replica.id), .badgeTotal(total))
    }

    mutating func setBadgeText(_ id: TabID, _ text: String?) throws(EditError) {
        _ = try catalogTab(id)
        let bytes = text?.utf8.count ?? 0
        if bytes > Entry.maxBadgeTextBytes { throw EditError(.badgeTextTooLong(bytes)) }
        put(.badgeText(id), .text(text))
    }

    // MARK: Clear

    /// The observed-remove clear: a context of every dot the document holds plus the previous context,
    /// and every live badge total, so the increments it saw never count again.
    mutating func reset() {
        var context = document.context
        var badges: [BadgeMark] = []
        for entry in document.storage {
            context.add(entry.dot)
            if case .badgeIncrements(let tab, let origin) = entry.key,
                case .badgeTotal(let total) = entry.value
            {
                badges.append(
                    BadgeMark(tab: tab, replica: origin, total: total, sequence: entry.dot.sequence))
            }
        }
        // The merge with the previous clear keeps, per (tab, replica), the mark that saw more.
        put(.cleared, .context(context, badges: BadgeMark.merge(document.badgeMarks, badges.sorted())))
    }
}
