import TabKeep
import TabKeepTestSupport

/// What the users meant, kept apart from everything the store does: every accepted edit with the
/// edits its device had seen when it was made, replayed in stamp order.
///
/// It is deliberately slow and plain: no keys, no tombstones, no vectors. Registers are "the latest
/// write wins, unless a clear had seen it"; a badge counts from its latest set (unless a clear had
/// seen that set) the increments that neither that set nor any clear had seen; a move keeps its tab between the neighbours its
/// device saw, as long as those neighbours have not moved since.
///
/// The scripts wait for the wall clock's millisecond to move on before every edit, so the order of
/// the script is the order of the stamps, and the model needs no clock of its own.
struct ReferenceModel {
    enum Change: Equatable {
        /// The tab now stands after `after` and before `before` (the neighbours, fixed tabs left out,
        /// in the order its device showed once the move was made). `copied`: a guest merge carried it.
        case move(TabID, after: TabID?, before: TabID?, copied: Bool)
        case customizable(TabID, Bool)
        case hidden(TabID, Bool)
        case select(Selection)
        case badgeText(TabID, String?)
        case badgeSet(TabID, Int64)
        /// The change the increment made, after the clamping the device applied to what it saw.
        case badgeAdd(TabID, Int64)
        /// A reset of the bar, or an erase of the profile.
        case clear
    }

    struct Edit {
        let id: Int
        /// Stamp order; a guest merge's copy keeps the order of the edit it copies, and its later id
        /// puts it after that edit, as the store's one tick does: it beats that edit, cleared or not.
        let order: Int
        let device: Int
        let profile: ProfileID
        let change: Change
        /// The edits the device held when it made this one.
        let seen: Set<Int>
        /// The catalog variant the device ran.
        let catalog: Int
        /// For a guest merge's copy: the guest's edit it copies.
        var copyOf: Int? = nil
    }

    private(set) var edits: [Edit] = []
    /// What each device holds.
    var knowledge: [Set<Int>]
    private var nextOrder = 0

    init(devices: Int) {
        knowledge = Array(repeating: [], count: devices)
    }

    /// Records an edit made now by `device`.
    /// `together`: the other edits made in the same call (a reorder's moves), which it sees as done.
    @discardableResult
    mutating func record(
        _ change: Change, profile: ProfileID, device: Int, catalog: Int, order: Int? = nil,
        together: Set<Int> = [], copyOf: Int? = nil
    ) -> Edit {
        let edit = Edit(
            id: edits.count, order: order ?? nextOrder, device: device, profile: profile, change: change,
            seen: knowledge[device].union(together), catalog: catalog, copyOf: copyOf)
        if order == nil { nextOrder += 1 }
        edits.append(edit)
        knowledge[device].insert(edit.id)
        return edit
    }

    // MARK: Reading the model

    /// The edits of `profile` among `known`, in stamp order.
    func edits(of profile: ProfileID, in known: Set<Int>) -> [Edit] {
        known.map { edits[$0] }.filter { $0.profile == profile }.sorted {
            ($0.order, $0.id) < ($1.order, $1.id)
        }
    }

    /// Whether a clear of the profile among `known` had seen `edit`.
    func isCleared(_ edit: Edit, in known: Set<Int>) -> Bool {
        known.contains { id in
            let clear = edits[id]
            return clear.change == .clear && clear.profile == edit.profile && clear.seen.contains(edit.id)
        }
    }

    /// The latest edit matching `matches`, or nil when there is none or a clear had seen it.
    func winner(_ profile: ProfileID, in known: Set<Int>, where matches: (Change) -> Bool) -> Edit? {
        guard let latest = edits(of: profile, in: known).last(where: { matches($0.change) }) else {
            return nil
        }
        return isCleared(latest, in: known) ? nil : latest
    }

    /// The winning move of `tab`, nil when it never moved or its latest move was cleared.
    func placement(of tab: TabID, _ profile: ProfileID, in known: Set<Int>) -> Edit? {
        winner(profile, in: known) { if case .move(tab, _, _, _) = $0 { true } else { false } }
    }

    /// The badge count before clamping at zero.
    func rawBadge(_ tab: TabID, _ profile: ProfileID, in known: Set<Int>) -> Int64 {
        let all = edits(of: profile, in: known)
        let increments = all.compactMap { edit -> (Edit, Int64)? in
            if case .badgeAdd(tab, let delta) = edit.change { return (edit, delta) }
            return nil
        }
        let set = all.last { if case .badgeSet(tab, _) = $0.change { true } else { false } }
        if let set, !isCleared(set, in: known), case .badgeSet(_, let count) = set.change {
            return count
                + increments.filter { !set.seen.contains($0.0.id) && !isCleared($0.0, in: known) }
                .reduce(0) { $0 + $1.1 }
        }
        return increments.filter { !isCleared($0.0, in: known) }.reduce(0) { $0 + $1.1 }
    }

    /// The layout the users' edits mean on a device running `catalog`, except the order, which
    /// ``orderProblems`` checks.
    func expectedLayout(_ profile: ProfileID, catalog: Catalog, in known: Set<Int>) -> Layout {
        func flag(_ tab: Catalog.Tab, hidden: Bool) -> Bool {
            let edit = winner(profile, in: known) {
                switch $0 {
                case .hidden(tab.id, _): hidden
                case .customizable(tab.id, _): !hidden
                default: false
                }
            }
            switch edit?.change {
            case .hidden(_, let value)?, .customizable(_, let value)?: return value
            default:
                if hidden {
                    switch tab.placement {
                    case .fixed, .movable: return false
                    case .optional: return true
                    case .default: return tab.hidden
                    }
                }
                return tab.placement == .fixed ? false : tab.customizable
            }
        }
        var layout = Layout(order: [], hidden: [])
        for tab in catalog.tabs {
            let hidden =
                tab.placement == .default || tab.placement == .optional ? flag(tab, hidden: true) : false
            if hidden {
                layout.hidden.append(tab.id)
                continue
            }
            layout.order.append(tab.id)
            if flag(tab, hidden: false) { layout.customizable.append(tab.id) }
            let count = rawBadge(tab.id, profile, in: known)
            if count > 0 { layout.badges[tab.id] = Int(count) }
            if case .badgeText(_, let text?)? = winner(
                profile, in: known,
                where: {
                    if case .badgeText(tab.id, _) = $0 { true } else { false }
                })?.change
            {
                layout.badgeTexts[tab.id] = text
            }
        }
        if case .select(let selection)? = winner(
            profile, in: known,
            where: {
                if case .select = $0 { true } else { false }
            })?.change
        {
            switch selection {
            case .tab(let tab): layout.selection = layout.order.contains(tab) ? selection : .none
            default: layout.selection = selection
            }
        }
        return layout
    }

    /// Where `order` (a device's shown order with `catalog`, variant `variant`) breaks what the users
    /// did. The rules it accepts:
    /// - a tab's winning move keeps it after and before the neighbours its device saw, unless that
    ///   neighbour has moved (or was reset) since: two concurrent moves into one gap may land in either
    ///   order, and a move follows neither neighbour's later moves;
    /// - tabs that never moved (or whose moves were cleared) keep the catalog's order;
    /// - a move made on a device whose catalog had a tab this one lacks is not checked here (the tab
    ///   it was placed after may not exist); LostEditTests checks that case exactly;
    /// - a guest merge's copied move wins or loses by its original's time, and keeps its tab by the
    ///   neighbours the guest saw, where each neighbour stands in the account as it stood for the
    ///   guest then (never moved in either, or moved there by the copy of that very guest move);
    /// - a move made on a device with another catalog is checked against the neighbour it follows
    ///   only: its device may have shown the next one by fallback (placed after a tab that device
    ///   lacks), and where that tab exists the two stand in different gaps.
    func orderProblems(
        _ order: [TabID], _ profile: ProfileID, catalog: Catalog, variant: Int, catalogs: [Catalog],
        in known: Set<Int>
    ) -> [String] {
        var problems: [String] = []
        var index: [TabID: Int] = [:]
        for (position, tab) in order.enumerated() { index[tab] = position }
        let ids = Set(catalog.tabs.map(\.id))
        var unmoved: [TabID] = []
        for tab in catalog.tabs where tab.placement != .fixed {
            guard let at = index[tab.id] else { continue }
            guard let move = placement(of: tab.id, profile, in: known) else {
                unmoved.append(tab.id)
                continue
            }
            guard case .move(_, let after, let before, _) = move.change,
                Set(catalogs[move.catalog].tabs.map(\.id)).isSubset(of: ids)
            else { continue }
            let sameCatalog = move.catalog == variant
            for (neighbour, shouldBeBefore) in [(after, true), (sameCatalog ? before : nil, false)] {
                guard let neighbour, let other = index[neighbour] else { continue }
                // The neighbour must stand where the mover saw it.
                guard standsAsSeen(neighbour, by: move, profile, in: known) else { continue }
                if shouldBeBefore ? other > at : other < at {
                    problems.append(
                        "\(tab.id) was moved (edit \(move.id)) to stand \(shouldBeBefore ? "after" : "before") \(neighbour), which has not moved since: \(order)"
                    )
                }
            }
        }
        let shownUnmoved = unmoved.map { index[$0]! }
        if shownUnmoved != shownUnmoved.sorted() {
            problems.append("tabs that never moved are out of catalog order: \(order)")
        }
        return problems
    }

    /// Whether `neighbour` stands in `profile` as it stood for `move`'s device when it was made.
    /// For a guest merge's copy, that is in the guest profile as the copied move saw it: the
    /// neighbour never moved in either, or its winning place is the copy of its guest place then.
    func standsAsSeen(_ neighbour: TabID, by move: Edit, _ profile: ProfileID, in known: Set<Int>) -> Bool {
        let now = placement(of: neighbour, profile, in: known)
        guard let original = move.copyOf.map({ edits[$0] }) else {
            return now?.id == placement(of: neighbour, profile, in: move.seen)?.id
        }
        let then = placement(of: neighbour, original.profile, in: original.seen)
        return now?.copyOf == then?.id && (now == nil) == (then == nil)
    }

    /// Why `written` is not a smallest set of moves that turns `old` into `new` (both the movable
    /// tabs in shown order), or nil when it is: the tabs left out keep their old order, and no
    /// longer run of `old` could have stayed.
    static func reorderProblem(from old: [TabID], to new: [TabID], written: Set<TabID>) -> String? {
        if let stray = written.first(where: { !new.contains($0) }) {
            return "a reorder wrote \(stray), which is not in \(new)"
        }
        let kept = new.filter { !written.contains($0) }.map { old.firstIndex(of: $0)! }
        if kept != kept.sorted() {
            return
                "a reorder from \(old) to \(new) wrote \(written.map(\.rawValue).sorted()), so the tabs it kept changed order"
        }
        // The longest run of `old` that `new` keeps in order: a longest increasing subsequence.
        let positions = new.map { old.firstIndex(of: $0)! }
        var longest = Array(repeating: 1, count: positions.count)
        for end in positions.indices {
            for start in 0..<end where positions[start] < positions[end] {
                longest[end] = max(longest[end], longest[start] + 1)
            }
        }
        let fewest = positions.count - (longest.max() ?? 0)
        if written.count != fewest {
            return
                "a reorder from \(old) to \(new) wrote \(written.count) tabs (\(written.map(\.rawValue).sorted())), not the \(fewest) the user moved"
        }
        return nil
    }
}
