/// Ties a tab bar (a ``TabBarHost``) to one (profile, bar) of a ``TabKeepStore``: it puts the stored
/// arrangement on the bar, keeps it there whatever UIKit resets, and records what the user does.
///
/// ```swift
/// let coordinator = TabBarCoordinator(store: store, profile: user, catalog: catalog, host: tabBarController)
/// try coordinator.attach()   // the user's order, customizable subset, selection and badges are on the bar
/// try tabBarController.setTabIDs(coordinator.arranged(enabledTabs))  // a feature flag changed
/// ```
///
/// What it does, and the rules it follows:
/// - **Attach** (``attach()``) registers the catalog (only when it changed), assigns the stored order
///   (`Layout.order`), re-applies the customizable subset, restores the selection by identity (a tab
///   under More and More itself included; when the stored tab is gone, or More is stored but the bar
///   no longer needs it, UIKit's fallback stands) and sets the badges.
/// - **Every assignment of the tab list**, whoever makes it, is followed at once by the customizable
///   subset the store holds for the tabs now present: the stored flag, else the catalog's default;
///   a tab the catalog does not list is not customizable. Badges are re-applied too.
/// - **Badges**: a tab's badge text, when set, wins; else its count (above zero) as a decimal string;
///   else no badge. The coordinator owns the badges of the bar: edit them in the store.
/// - **Recording**: the order when customizing ends with `changed == true`, as
///   ``TabBarEdit/reorder(_:)`` (the document moves as few tabs as it can); every selection change,
///   taps, programmatic selections and UIKit's fallback after an assignment alike, because that is what
///   the user saw and a relaunch should show it again. A selection the store cannot hold (a tab the
///   catalog does not show, or nothing) is not recorded. The coordinator's own changes of the bar are
///   never recorded.
/// - **Writes** go through the store's group commit from one serial chain of tasks: the caller never
///   waits for the disk, and edits commit in the order they were made. ``flush()`` awaits them.
/// - **Store changes** (a sync, another process, the app editing badges) are followed onto the bar: a
///   changed order re-arranges the tabs present, a changed selection is restored, the customizable
///   subset and badges are re-applied. While the coordinator's own writes are pending it waits, so it
///   never rolls the bar back to a state it has not finished writing; and it never records what it
///   applies, so nothing echoes.
@MainActor
public final class TabBarCoordinator {
    /// The store the arrangement lives in.
    public let store: TabKeepStore
    /// Whose arrangement this is.
    public let profile: ProfileID
    /// Which of the profile's bars.
    public let bar: BarID
    /// The tabs the app offers now; the coordinator registers it on attach.
    public let catalog: Catalog
    /// The tab bar the arrangement is applied to.
    public let host: any TabBarHost

    private var observation: TabBarObservation?
    private var storeFollower: Task<Void, Never>?
    private var writeTail: Task<Void, Never>?
    private var pendingWrites = 0
    private var firstError: TabKeepError?
    // True while the coordinator itself changes the host: nothing it causes is recorded.
    private var isApplying = false
    // A store change arrived that is not on the host yet.
    private var needsRefresh = false
    // Waits for a suspended store to resume before refreshing: a read now would reopen it.
    private var refreshAfterResume: Task<Void, Never>?
    // The stored order and selection as last put on the host: store changes are followed relative to them,
    // so an unrelated change (a badge) never undoes what the app or the user did on the bar.
    private var appliedOrder: [TabID] = []
    private var appliedSelection: Selection = .none
    // The order of the last finished customizing whose reorder is not committed yet.
    private var pendingOrder: [TabID]?
    // The host's list as last assigned or customized: the order a customizing session starts from,
    // since nothing but the user can change the list while the session is open.
    private var hostOrder: [TabID] = []

    /// A coordinator of `profile`'s `bar` in `store`, shown on `host`. Nothing happens until ``attach()``.
    public init(
        store: TabKeepStore, profile: ProfileID, bar: BarID = .main, catalog: Catalog, host: any TabBarHost
    ) {
        self.store = store
        self.profile = profile
        self.bar = bar
        self.catalog = catalog
        self.host = host
    }

    isolated deinit {
        detach()
    }

    /// Whether the coordinator follows the host and the store.
    public var isAttached: Bool { observation != nil }

    /// Registers the catalog, puts the stored arrangement on the host and starts following the host
    /// and the store. Attaching again does nothing.
    ///
    /// The catalog is written only when it differs from the registered one, so a usual launch reads
    /// and never waits on a commit.
    public func attach() throws(TabKeepError) {
        guard observation == nil else { return }
        if try store.catalog(for: bar) != catalog {
            try store.registerCatalog(catalog, for: bar)
        }
        let stored: StoredBar
        do throws(TabKeepError) {
            // Subscribe before reading, so no change slips between the read and the subscription.
            let changes = store.changes()
            let key = DocumentKey(profile: profile, bar: bar)
            storeFollower = Task { @MainActor [weak self] in
                for await changed in changes where changed == key {
                    self?.storeDidChange()
                }
            }
            observation = host.observeChanges { [weak self] event in self?.hostDidChange(event) }
            stored = try readStoredBar()
        } catch {
            detach()
            throw error
        }
        applying {
            // The assignment reports tabsAssigned, whose handler re-applies the customizable subset and badges.
            try? host.setTabIDs(stored.layout.order)
            restoreSelection(stored.layout.selection)
        }
        appliedOrder = stored.layout.order
        appliedSelection = stored.layout.selection
    }

    /// Stops following the host and the store. Edits already made still commit. Also done on deinit.
    public func detach() {
        observation?.cancel()
        observation = nil
        storeFollower?.cancel()
        storeFollower = nil
        refreshAfterResume?.cancel()
        refreshAfterResume = nil
    }

    /// Waits until every edit the coordinator has recorded so far is committed, then throws the first
    /// error met since the last flush (a write or read the coordinator could not do), if any.
    ///
    /// Apps call it before they suspend or quit; tests call it before they read the store.
    public func flush() async throws(TabKeepError) {
        while pendingWrites > 0, let tail = writeTail {
            await tail.value
        }
        if let error = firstError {
            firstError = nil
            throw error
        }
    }

    /// `tabs` in the user's stored order: the catalog tabs among them take the stored order, others
    /// (tabs the catalog does not show) keep their places. Assign the result when a feature flag changes
    /// the list, so the user's arrangement survives it.
    ///
    /// ```swift
    /// try host.setTabIDs(coordinator.arranged(catalogOrder.filter(flags.isEnabled)))
    /// ```
    public func arranged(_ tabs: [TabID]) throws(TabKeepError) -> [TabID] {
        if let pendingOrder { return Self.refilling(tabs, inOrderOf: pendingOrder) }
        return Self.refilling(tabs, inOrderOf: try readStoredBar().layout.order)
    }

    // MARK: Following the host

    private func hostDidChange(_ event: TabBarHostEvent) {
        switch event {
        case .tabsAssigned(let tabs):
            hostOrder = tabs
            // Always, also for the coordinator's own assignments: UIKit has just reset the subset.
            reapplyStoredFlags()
        case .selectionChanged(let selection, _):
            guard !isApplying else { return }
            record(selection)
        case .customizingEnded(let changed, let order):
            let start = hostOrder
            hostOrder = order
            if changed && !isApplying { record(order: order, sessionStart: start) }
            refreshIfIdle()  // a store change may have waited for the session to end
        }
    }

    private func record(_ selection: Selection) {
        enqueue { stored in
            guard selection != stored.layout.selection else { return [] }
            switch selection {
            case .tab(let tab): return stored.layout.order.contains(tab) ? [.select(selection)] : []
            case .more: return [.select(.more)]
            case .none: return []
            }
        }
    }

    /// Records only the moves the user made in the session, computed against the order at its start,
    /// so a change that reached the store while the session was open (a sync) survives.
    private func record(order hostOrder: [TabID], sessionStart: [TabID]) {
        pendingOrder = Self.refilling(pendingOrder ?? appliedOrder, inOrderOf: hostOrder)
        let moved = Self.movedTabs(from: sessionStart, to: hostOrder)
        enqueue { stored in
            let order = Self.applying(
                moves: moved, madeIn: hostOrder, to: stored.layout.order, catalog: stored.resolved.catalog)
            return order == stored.layout.order ? [] : [.reorder(order)]
        }
    }

    /// The fewest tabs whose moves turn `start` into `end`: those outside a longest run of `end` that
    /// keeps `start`'s order. Tabs only one of them has are left out.
    static func movedTabs(from start: [TabID], to end: [TabID]) -> Set<TabID> {
        var indexInStart: [TabID: Int] = [:]
        for (index, tab) in start.enumerated() { indexInStart[tab] = index }
        let shared = end.filter { indexInStart[$0] != nil }
        // Longest increasing subsequence of start indices, by patience sorting.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: shared.count)
        for (position, tab) in shared.enumerated() {
            let value = indexInStart[tab]!
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if indexInStart[shared[tails[middle]]]! < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var kept = Set<TabID>()
        var position = tails.last ?? -1
        while position >= 0 {
            kept.insert(shared[position])
            position = previous[position]
        }
        return Set(shared.filter { !kept.contains($0) })
    }

    /// `stored` with each tab of `moved` put right after the tab that precedes it in `end` (first when
    /// none does), every other tab where it stands, and fixed tabs back at their indices.
    static func applying(moves moved: Set<TabID>, madeIn end: [TabID], to stored: [TabID], catalog: Catalog)
        -> [TabID]
    {
        let isFixed = { (tab: TabID) in catalog.tab(tab)?.placement == .fixed }
        var order = stored.filter { !moved.contains($0) && !isFixed($0) }
        for (index, tab) in end.enumerated() where moved.contains(tab) && stored.contains(tab) {
            var at = 0
            for earlier in end[..<index].reversed() {
                if let found = order.firstIndex(of: earlier) {
                    at = found + 1
                    break
                }
            }
            order.insert(tab, at: at)
        }
        for (index, tab) in stored.enumerated() where isFixed(tab) {
            order.insert(tab, at: min(index, order.count))
        }
        return order
    }

    /// Puts the stored customizable subset and badges of the present tabs on the host.
    private func reapplyStoredFlags() {
        do throws(TabKeepError) {
            apply(flagsOf: try readStoredBar())
        } catch {
            note(error)
        }
    }

    private func apply(flagsOf stored: StoredBar) {
        let present = host.tabIDs
        let customizable = present.filter(stored.isCustomizable)
        // Both come from the present list, so the host cannot refuse them.
        if host.customizableTabIDs != customizable { try? host.setCustomizableTabIDs(customizable) }
        for tab in present {
            let value = stored.layout.badgeText(for: tab) ?? stored.layout.badge(for: tab).map(String.init)
            if host.badgeValue(for: tab) != value { try? host.setBadgeValue(value, for: tab) }
        }
    }

    /// Selects `selection` by identity when the host can show it; otherwise UIKit's fallback stands.
    private func restoreSelection(_ selection: Selection) {
        guard host.selection != selection else { return }
        switch selection {
        case .tab(let tab) where host.tabIDs.contains(tab):
            try? host.setSelection(selection)
        case .more where host.tabIDs.count > host.maxVisible:
            try? host.setSelection(selection)
        default:
            break
        }
    }

    // MARK: Following the store

    private func storeDidChange() {
        needsRefresh = true
        refreshIfIdle()
    }

    /// Applies a store change once the coordinator's own writes are committed.
    private func refreshIfIdle() {
        guard needsRefresh, pendingWrites == 0, isAttached else { return }
        if store.isSuspended {
            if refreshAfterResume == nil {
                refreshAfterResume = Task { @MainActor [weak self, store] in
                    await store.untilResumed()
                    self?.refreshAfterResume = nil
                    self?.refreshIfIdle()
                }
            }
            return
        }
        needsRefresh = false
        let stored: StoredBar
        do throws(TabKeepError) {
            stored = try readStoredBar()
        } catch {
            return note(error)
        }
        applying {
            if stored.layout.order != appliedOrder {
                let tabs = Self.refilling(host.tabIDs, inOrderOf: stored.layout.order)
                if tabs != host.tabIDs {
                    do {
                        try host.setTabIDs(tabs)
                    } catch {
                        // Refused while the user customizes; retried when the session ends.
                        needsRefresh = true
                    }
                }
                if !needsRefresh { appliedOrder = stored.layout.order }
            }
            apply(flagsOf: stored)
            if stored.layout.selection != appliedSelection {
                restoreSelection(stored.layout.selection)
                appliedSelection = stored.layout.selection
            }
        }
    }

    // MARK: Writing

    /// Queues edits made from the stored bar as it is when every earlier edit has committed.
    private func enqueue(_ edits: @escaping @MainActor (StoredBar) -> [TabBarEdit]) {
        pendingWrites += 1
        let previous = writeTail
        writeTail = Task { @MainActor in
            await previous?.value
            // Reading a suspended store would reopen it: the edit waits for resume(), as async edits do.
            await store.untilResumed()
            do throws(TabKeepError) {
                let planned = edits(try readStoredBar())
                if !planned.isEmpty {
                    try await store.edit(profile, bar: bar, catalog: catalog, planned)
                }
            } catch {
                note(error)
            }
            pendingWrites -= 1
            if pendingWrites == 0 { pendingOrder = nil }
            refreshIfIdle()
        }
    }

    private func note(_ error: TabKeepError) {
        if firstError == nil { firstError = error }
    }

    private func applying(_ body: () -> Void) {
        let wasApplying = isApplying
        isApplying = true
        body()
        isApplying = wasApplying
    }

    private func readStoredBar() throws(TabKeepError) -> StoredBar {
        StoredBar(document: try store.document(profile, bar: bar) ?? TabBarDocument(), catalog: catalog)
    }

    /// `base` with the slots of the tabs it shares with `source` refilled in `source`'s order; the
    /// other tabs of `base` keep their slots. It maps a partial list onto a full order and back.
    static func refilling(_ base: [TabID], inOrderOf source: [TabID]) -> [TabID] {
        let inBase = Set(base)
        let inSource = Set(source)
        var shared = source.filter(inBase.contains).makeIterator()
        return base.map { inSource.contains($0) ? shared.next()! : $0 }
    }
}

/// The stored document of a bar read through the coordinator's catalog.
private struct StoredBar {
    let resolved: ResolvedBar
    let layout: Layout

    init(document: TabBarDocument, catalog: Catalog) {
        resolved = ResolvedBar(document: document, catalog: catalog)
        layout = resolved.layout
    }

    /// The stored flag, else the catalog default; a tab the catalog does not list is not customizable.
    func isCustomizable(_ tab: TabID) -> Bool {
        resolved.catalog.tab(tab).map(resolved.isCustomizable) ?? false
    }
}
