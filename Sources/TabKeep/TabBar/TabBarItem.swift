/// One item on the bar: a tab's button, or the More button the controller adds when the list is longer
/// than `maxVisible`.
public enum TabBarItem: Hashable, Sendable {
    /// The button of a tab.
    case tab(TabID)
    /// The More button; its list holds the tabs that do not fit.
    case more

    /// The selection that tapping this item makes.
    public var selection: Selection {
        switch self {
        case .tab(let tab): return .tab(tab)
        case .more: return .more
        }
    }
}
