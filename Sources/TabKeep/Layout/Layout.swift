/// What the user sees: a document resolved against the app's catalog.
///
/// ```swift
/// let layout = document.layout(catalog: catalog)
/// let (visible, more) = layout.split(maxVisible: 5)
/// ```
public struct Layout: Hashable, Sendable {
    /// Shown tabs (in the catalog, not hidden), in order.
    public var order: [TabID]
    /// Catalog tabs that are hidden, in resolved order.
    public var hidden: [TabID]
    /// The customizable tabs: a subset of `order`, in order.
    public var customizable: [TabID]
    /// The stored selection if its tab is shown, `.more`, else `.none`.
    public var selection: Selection
    /// Badge counts of shown tabs whose count is above zero.
    public var badges: [TabID: Int]
    /// Badge texts of shown tabs that have one.
    public var badgeTexts: [TabID: String]

    /// A layout.
    public init(
        order: [TabID] = [], hidden: [TabID] = [], customizable: [TabID] = [], selection: Selection = .none,
        badges: [TabID: Int] = [:], badgeTexts: [TabID: String] = [:]
    ) {
        self.order = order
        self.hidden = hidden
        self.customizable = customizable
        self.selection = selection
        self.badges = badges
        self.badgeTexts = badgeTexts
    }

    /// The tab bar's items and the More list: with more than `maxVisible` tabs, the first
    /// `maxVisible − 1` show plus More, and the rest live under More.
    public func split(maxVisible: Int = 5) -> (visible: [TabID], more: [TabID]) {
        if order.count <= maxVisible { return (order, []) }
        let shown = max(0, maxVisible - 1)
        return (Array(order[..<shown]), Array(order[shown...]))
    }
}
