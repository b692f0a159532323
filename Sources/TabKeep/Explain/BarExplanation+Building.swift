extension BarExplanation {
    /// Explains `document` resolved against `catalog`, as read on the replica `thisDevice`.
    ///
    /// Every fact is taken from the entry that wins for it after renames are read through (the same
    /// winner the layout uses), so the explanation and the layout never disagree.
    init(
        profile: ProfileID, bar: BarID, document: TabBarDocument, catalog: Catalog, thisDevice: ReplicaID
    ) {
        self.profile = profile
        self.bar = bar
        self.thisDevice = thisDevice
        self.catalog = catalog
        let layout = document.layout(catalog: catalog)
        self.layout = layout

        let facts = Facts(document: document, catalog: catalog, thisDevice: thisDevice)
        let resolved = ResolvedBar(document: document, catalog: catalog)
        let clear = facts.clear
        let pins = PinEvidence(document: document, clearStamp: clear?.entry.stamp)
        let shownIndex = Dictionary(uniqueKeysWithValues: layout.order.enumerated().map { ($1, $0) })
        let movable = catalog.tabs.filter { $0.placement != .fixed }.map(\.id)
        var formerIDs: [TabID: [TabID]] = [:]
        for old in catalog.renames.keys.sorted() { formerIDs[catalog.current(old), default: []].append(old) }

        tabs = (layout.order + layout.hidden).compactMap { id in
            guard let catalogIndex = catalog.catalogIndexOfTab[id] else { return nil }
            let tab = catalog.tabs[catalogIndex]
            return TabExplanation(
                tab: id, index: shownIndex[id], formerIDs: formerIDs[id] ?? [],
                place: facts.place(of: tab, catalogIndex: catalogIndex, movable: movable, pins: pins),
                customizable: facts.customizable(tab), hidden: facts.hidden(tab),
                badge: facts.badge(id, clearTotals: clear?.badgeTotals ?? [:], resolved: resolved),
                badgeText: facts.badgeText(id))
        }

        var stored = Selection.none
        var selectionProvenance: Provenance?
        if let winner = facts.winners[.selection], let selection = EntryReading.selection(winner.entry.value)
        {
            stored = selection
            selectionProvenance = facts.provenance(winner)
            if case .tab(let tab) = selection, catalog.current(tab) != tab {
                stored = .tab(catalog.current(tab))
                selectionProvenance?.writtenAs = tab
            }
        }
        selection = SelectionExplanation(
            stored: stored, shown: layout.selection, provenance: selectionProvenance)

        clears = clear.map { [$0.explanation] } ?? []
        notInCatalog = facts.notInCatalog
    }
}

/// The winning live entry of every key, renames read through, and the clear.
private struct Facts {
    /// A winning entry and the id it was written under, when a rename reads it as another tab.
    struct Winner {
        var entry: Entry
        var writtenAs: TabID?
    }

    /// The document's clear, read.
    struct Clear {
        var entry: Entry
        var badgeTotals: [TabID: [ReplicaID: Int64]]
        var explanation: ClearExplanation
    }

    let catalog: Catalog
    let thisDevice: ReplicaID
    var winners: [Entry.Key: Winner] = [:]
    /// The replicas with a badge total per tab, so a badge is explained without a scan of every key.
    var totalReplicas: [TabID: [ReplicaID]] = [:]
    var clear: Clear?
    var notInCatalog: [TabID] = []

    init(document: TabBarDocument, catalog: Catalog, thisDevice: ReplicaID) {
        self.catalog = catalog
        self.thisDevice = thisDevice
        var others = Set<TabID>()
        var removedTabs = Set<TabID>()
        var removedSelection = false
        var clearEntry: Entry?
        for entry in document.entries {
            if entry.key == .cleared {
                clearEntry = entry
                continue
            }
            var key = entry.key
            var writtenAs: TabID?
            if let tab = key.tab {
                let current = catalog.current(tab)
                if current != tab {
                    key = key.with(tab: current)
                    writtenAs = tab
                }
                if catalog.catalogIndexOfTab[current] == nil && entry.value != .removed {
                    others.insert(current)
                }
            }
            if entry.value == .removed {
                if let tab = key.tab, catalog.catalogIndexOfTab[tab] != nil { removedTabs.insert(tab) }
                if key == .selection { removedSelection = true }
                continue
            }
            // Old and new id both written: the newer entry wins, as in the layout.
            if let existing = winners[key], existing.entry.beats(entry) { continue }
            winners[key] = Winner(entry: entry, writtenAs: writtenAs)
        }
        notInCatalog = others.sorted()
        for key in winners.keys {
            if case .badgeIncrements(let tab, let replica) = key {
                totalReplicas[tab, default: []].append(replica)
            }
        }
        if let clearEntry, let (covered, totals) = EntryReading.clear(clearEntry.value) {
            var badgeTotals: [TabID: [ReplicaID: Int64]] = [:]
            for (tab, byReplica) in totals {
                badgeTotals[catalog.current(tab), default: [:]].merge(byReplica) { max($0, $1) }
            }
            clear = Clear(
                entry: clearEntry, badgeTotals: badgeTotals,
                explanation: ClearExplanation(
                    provenance: Provenance(clearEntry, thisDevice: thisDevice), covered: covered,
                    removedTabs: removedTabs.sorted(), removedSelection: removedSelection,
                    badgeTotals: badgeTotals))
        }
    }

    func provenance(_ winner: Winner) -> Provenance {
        Provenance(winner.entry, thisDevice: thisDevice, writtenAs: winner.writtenAs)
    }

    func place(of tab: Catalog.Tab, catalogIndex: Int, movable: [TabID], pins: PinEvidence)
        -> TabExplanation.Place
    {
        if tab.placement == .fixed { return .fixed(catalogIndex: catalogIndex) }
        if let winner = winners[.position(tab.id)], let reading = EntryReading.place(winner.entry, pins: pins)
        {
            switch reading {
            case .moved(let slot): return .moved(provenance(winner), slot: slot)
            case .pinned: return .pinned(provenance(winner))
            }
        }
        // Unmoved: right after the previous tab that can move, in catalog order (hidden ones included).
        let index = movable.firstIndex(of: tab.id) ?? 0
        return .catalogDefault(after: index > 0 ? movable[index - 1] : nil)
    }

    func customizable(_ tab: Catalog.Tab) -> TabExplanation.Flag {
        if tab.placement == .fixed { return .init(value: false, source: .placement(.fixed)) }
        if let winner = winners[.customizable(tab.id)], let flag = EntryReading.flag(winner.entry.value) {
            return .init(value: flag, source: .edited(provenance(winner)))
        }
        return .init(value: tab.customizableByDefault, source: .catalogDefault)
    }

    func hidden(_ tab: Catalog.Tab) -> TabExplanation.Flag {
        switch tab.placement {
        case .fixed, .movable: return .init(value: false, source: .placement(tab.placement))
        case .default, .optional: break
        }
        if let winner = winners[.hidden(tab.id)], let flag = EntryReading.flag(winner.entry.value) {
            return .init(value: flag, source: .edited(provenance(winner)))
        }
        return .init(value: tab.hiddenByDefault, source: .catalogDefault)
    }

    /// count = max(0, reset.count + Σ_r (total_r − baseline_r)); a replica's baseline is the layout's
    /// (``ResolvedBar/badgeBaseline(_:_:)``): what the standing reset had seen from it, or what the clear
    /// had seen when that saw more, else 0.
    func badge(_ tab: TabID, clearTotals: [TabID: [ReplicaID: Int64]], resolved: ResolvedBar)
        -> BadgeExplanation?
    {
        var reset: BadgeExplanation.Reset?
        if let winner = winners[.badgeReset(tab)], let value = EntryReading.badgeReset(winner.entry.value) {
            reset = .init(count: value.count, seen: value.seen, provenance: provenance(winner))
        }
        var increments: [BadgeExplanation.Increment] = []
        for replica in totalReplicas[tab] ?? [] {
            guard let winner = winners[.badgeIncrements(tab, replica)],
                let total = EntryReading.badgeTotal(winner.entry.value)
            else { continue }
            let baseline = resolved.badgeBaseline(tab, replica)
            increments.append(
                .init(replica: replica, total: total, baseline: baseline, provenance: provenance(winner)))
        }
        if reset == nil && increments.isEmpty { return nil }
        increments.sort { $0.replica < $1.replica }
        let sum = increments.reduce(reset?.count ?? 0) { $0 + $1.counted }
        let baseline: BadgeExplanation.Baseline =
            reset != nil ? .reset : clearTotals[tab]?.isEmpty == false ? .clear : .none
        return BadgeExplanation(count: max(0, sum), reset: reset, baseline: baseline, increments: increments)
    }

    func badgeText(_ tab: TabID) -> TabExplanation.BadgeText? {
        guard let winner = winners[.badgeText(tab)], let text = EntryReading.text(winner.entry.value) ?? nil
        else { return nil }
        return .init(text: text, provenance: provenance(winner))
    }
}
