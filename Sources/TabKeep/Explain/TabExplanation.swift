/// Why one catalog tab stands where it does and looks as it does: its place, its flags and its badge,
/// each with the edit (device and time) it comes from, or the catalog default it falls back to.
///
/// ```swift
/// let explanation = try store.explain(alice)!
/// for tab in explanation.tabs {
///     switch tab.place {
///     case .moved(let by, _): print("\(tab.tab) moved by \(by.origin) at \(by.date)")
///     case .pinned: print("\(tab.tab) pinned (no move)")
///     case .catalogDefault(let after): print("\(tab.tab) default place, after \(after?.rawValue ?? "the start")")
///     case .fixed(let index): print("\(tab.tab) fixed at catalog index \(index)")
///     }
/// }
/// ```
public struct TabExplanation: Hashable, Sendable {
    /// Where a tab's place in the order comes from.
    public enum Place: Hashable, Sendable {
        /// A fixed tab: always at its catalog index (0-based), whatever the document says.
        case fixed(catalogIndex: Int)
        /// No move stands (never moved, or the move was cleared): the tab's catalog default place,
        /// right after its catalog predecessor `after` among the tabs that can move (nil: first).
        case catalogDefault(after: TabID?)
        /// A user's move; `slot` is the gap it was placed in when the document records one (nil for
        /// a position key in one bar-wide order, which names no neighbour).
        case moved(Provenance, slot: MoveSlot?)
        /// A pin: written where the tab already stood, so that another tab's move had neighbours.
        /// Not a move of its own; any real move beats it.
        case pinned(Provenance)
    }

    /// The gap of the catalog a move placed a tab in.
    public struct MoveSlot: Hashable, Sendable {
        /// The catalog tab whose slot the tab was placed after (nil: before the first slot).
        public var after: TabID?
        /// The first unmoved tab after it when it was placed, if any.
        public var next: TabID?
    }

    /// A customizable or hidden flag and where it comes from.
    public struct Flag: Hashable, Sendable {
        /// Where a flag's value comes from.
        public enum Source: Hashable, Sendable {
            /// The catalog's default for the tab: no edit stands.
            case catalogDefault
            /// An edit set it.
            case edited(Provenance)
            /// The tab's placement decides it (a fixed tab is never customizable; fixed and movable
            /// tabs are never hidden); a stored edit, if any, is ignored.
            case placement(Catalog.Placement)
        }

        /// The value in effect.
        public var value: Bool
        /// Where it comes from.
        public var source: Source
    }

    /// The badge text of a tab and who set it.
    public struct BadgeText: Hashable, Sendable {
        /// The text shown.
        public var text: String
        /// Who set it, and when.
        public var provenance: Provenance
    }

    /// The tab (its current id).
    public var tab: TabID
    /// Its index in the shown order (`Layout.order`); nil when hidden.
    public var index: Int?
    /// Older ids the catalog renames to this tab; entries written under them are read as this tab.
    public var formerIDs: [TabID]
    /// Where its place comes from.
    public var place: Place
    /// Whether it is customizable, and why.
    public var customizable: Flag
    /// Whether it is hidden, and why.
    public var hidden: Flag
    /// Its badge count as its parts, or nil when no badge entry stands for it.
    public var badge: BadgeExplanation?
    /// Its badge text, or nil when it has none.
    public var badgeText: BadgeText?
}
