/// One user edit of a tab bar, applied with `TabBarDocument.apply(_:catalog:by:)`.
///
/// ```swift
/// try document.apply(.move(try TabID("inbox"), to: 0), catalog: catalog, by: &replica)
/// ```
public enum TabBarEdit: Hashable, Sendable {
    /// Moves a shown tab to an index of the shown order (`Layout.order`).
    case move(TabID, to: Int)
    /// A finished customization: the whole new shown order. Writes as few positions as it can.
    case reorder([TabID])
    /// The customizable subset of the shown tabs; writes only the flags that change.
    case setCustomizable([TabID])
    /// Sets one tab's customizable flag.
    case setCustomizableFlag(TabID, Bool)
    /// Hides or shows a tab.
    case setHidden(TabID, Bool)
    /// Selects a tab, More or nothing.
    case select(Selection)
    /// Sets the absolute badge count (>= 0; 0 clears it).
    case setBadge(TabID, Int)
    /// Adds to the badge count; a decrement records only what it can take (5 − 10 records −5).
    case addToBadge(TabID, Int)
    /// Clears the badge count.
    case clearBadge(TabID)
    /// Sets or removes the badge text (at most 64 UTF-8 bytes).
    case setBadgeText(TabID, String?)
    /// Observed-remove clear of the whole bar: removes every entry this replica has seen.
    case reset
}
