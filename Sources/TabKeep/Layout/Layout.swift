/// What the user sees: a document resolved against the app's catalog.
///
/// A layout read from a store (``TabKeepStore/layout(_:bar:catalog:)``) holds catalog indices,
/// allocating nothing, and builds each array and dictionary when it is asked for: a launch that
/// reads only the order pays for no other. Each read of such a property builds it again, so keep
/// it in a local when you use it more than once (`badge(for:)` and `badgeText(for:)` answer for
/// one tab without building a dictionary). Setting a property turns the layout into plain values.
///
/// ```swift
/// let layout = document.layout(catalog: catalog)
/// let (visible, more) = layout.split(maxVisible: 5)
/// ```
public struct Layout: Hashable, Sendable {
    private var storage: Storage

    /// A layout.
    public init(
        order: [TabID] = [], hidden: [TabID] = [], customizable: [TabID] = [], selection: Selection = .none,
        badges: [TabID: Int] = [:], badgeTexts: [TabID: String] = [:]
    ) {
        storage = .values(
            Values(
                order: order, hidden: hidden, customizable: customizable, selection: selection,
                badges: badges,
                badgeTexts: badgeTexts))
    }

    /// A layout read from stored bytes, built on access.
    init(compact: CompactLayout) {
        storage = .compact(compact)
    }

    /// The packed layout this value reads from, if it was built that way (not from plain values).
    var compact: CompactLayout? {
        if case .compact(let layout) = storage { return layout }
        return nil
    }

    /// Shown tabs (in the catalog, not hidden), in order.
    public var order: [TabID] {
        get { read({ $0.order }, { $0.order }) }
        set { update { $0.order = newValue } }
    }

    /// Catalog tabs that are hidden, in resolved order.
    public var hidden: [TabID] {
        get { read({ $0.hidden }, { $0.hidden }) }
        set { update { $0.hidden = newValue } }
    }

    /// The customizable tabs: a subset of `order`, in order.
    public var customizable: [TabID] {
        get { read({ $0.customizable }, { $0.customizable }) }
        set { update { $0.customizable = newValue } }
    }

    /// The stored selection if its tab is shown, `.more`, else `.none`.
    public var selection: Selection {
        get { read({ $0.selection }, { $0.selection }) }
        set { update { $0.selection = newValue } }
    }

    /// Badge counts of shown tabs whose count is above zero.
    public var badges: [TabID: Int] {
        get { read({ $0.badges }, { $0.badges }) }
        set { update { $0.badges = newValue } }
    }

    /// Badge texts of shown tabs that have one.
    public var badgeTexts: [TabID: String] {
        get { read({ $0.badgeTexts }, { $0.badgeTexts }) }
        set { update { $0.badgeTexts = newValue } }
    }

    /// The badge count of `tab`, if it shows one: `badges[tab]` without building the dictionary.
    public func badge(for tab: TabID) -> Int? {
        read({ $0.badges[tab] }, { $0.badge(for: tab) })
    }

    /// The badge text of `tab`, if it has one: `badgeTexts[tab]` without building the dictionary.
    public func badgeText(for tab: TabID) -> String? {
        read({ $0.badgeTexts[tab] }, { $0.badgeText(for: tab) })
    }

    /// The tab bar's items and the More list: with more than `maxVisible` tabs, the first
    /// `maxVisible − 1` show plus More, and the rest live under More.
    public func split(maxVisible: Int = 5) -> (visible: [TabID], more: [TabID]) {
        let order = self.order
        if order.count <= maxVisible { return (order, []) }
        let shown = max(0, maxVisible - 1)
        return (Array(order[..<shown]), Array(order[shown...]))
    }

    /// Whether two layouts show the same: every property equal, however each was built.
    public static func == (lhs: Layout, rhs: Layout) -> Bool {
        lhs.values == rhs.values
    }

    /// Hashes every property, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(values)
    }

    // MARK: Storage

    private enum Storage: Sendable {
        case values(Values)
        case compact(CompactLayout)
    }

    /// Every property as a plain value.
    struct Values: Hashable, Sendable {
        var order: [TabID]
        var hidden: [TabID]
        var customizable: [TabID]
        var selection: Selection
        var badges: [TabID: Int]
        var badgeTexts: [TabID: String]
    }

    private var values: Values { read({ $0 }, { $0.values }) }

    /// What `plain` reads of plain values, or `compact` of a compact layout.
    @inline(__always)
    private func read<T>(_ plain: (Values) -> T, _ compact: (CompactLayout) -> T) -> T {
        switch storage {
        case .values(let values): plain(values)
        case .compact(let layout): compact(layout)
        }
    }

    /// Changes one property, turning a compact layout into plain values first.
    private mutating func update(_ change: (inout Values) -> Void) {
        var values = self.values
        // Drop the stored copy so that `values` is the only owner of its arrays and changes in place.
        storage = .values(
            Values(order: [], hidden: [], customizable: [], selection: .none, badges: [:], badgeTexts: [:]))
        change(&values)
        storage = .values(values)
    }
}
