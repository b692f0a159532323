/// A headless, platform-neutral model of `UITabBarController`'s documented behaviour, so tab logic can
/// be tested on any platform.
///
/// - Assigning the list (``setTabIDs(_:)``, UIKit's `viewControllers =`) resets the customizable subset
///   to the whole list. The selection then stays on the previously selected tab if it is still present,
///   else moves to the same index if valid, else to the first tab (nothing for an empty list).
/// - With more than ``maxVisible`` tabs (5 by default, a compact iPhone bar) the bar shows the first
///   `maxVisible − 1` and More; the rest live under More.
/// - ``selectedIndex`` is nil (UIKit's `NSNotFound`) while More is selected; More has no index, and an
///   index out of range is ignored. A tab under More, once selected, has its own index.
/// - Only ``userTap(_:)`` asks the delegate's `shouldSelect` and reports `didSelect`; programmatic
///   selection asks and reports nothing (observers still learn of it).
/// - Customizing reports will-begin, will-end(changed) and did-end(changed); only customizable tabs move.
/// - The controller owns its ``tabBar``: editing it directly throws, as UIKit raises an exception.
///
/// ```swift
/// let model = TabBarControllerModel()
/// try model.setTabIDs(seven)          // a b c d | More: e f g
/// model.selectedIndex = 5             // f, under More; selectedIndex == 5
/// try model.setSelection(.more)       // selectedIndex == nil
/// ```
@MainActor
public final class TabBarControllerModel: TabBarHost {
    /// The tab list, in bar order.
    public internal(set) var tabIDs: [TabID] = []
    /// The tabs the user may move when customizing, in list order.
    public internal(set) var customizableTabIDs: [TabID] = []
    /// The current selection.
    public private(set) var selection: Selection = .none
    /// How many items the bar shows before it needs More; 5 unless set with ``setMaxVisible(_:)``.
    public private(set) var maxVisible = 5
    /// Whether a customizing session is open.
    public internal(set) var isCustomizing = false
    /// The app's delegate; like UIKit's, held weakly.
    public weak var delegate: (any TabBarControllerModelDelegate)?

    var orderWhenCustomizingBegan: [TabID] = []
    private var badgeValues: [TabID: String] = [:]
    private let observers = TabBarObservers()
    private lazy var ownedTabBar = ManagedTabBar(controller: self)

    /// An empty controller: no tabs, nothing selected, `maxVisible` 5.
    public init() {}

    /// An empty controller whose bar shows `maxVisible` items.
    public convenience init(maxVisible: Int) throws(TabBarError) {
        self.init()
        try setMaxVisible(maxVisible)
    }

    /// The bar the controller manages. Read it freely; editing it throws.
    public var tabBar: ManagedTabBar { ownedTabBar }

    // MARK: The list

    /// Assigns the tab list, like UIKit's `setViewControllers(_:animated:)`.
    ///
    /// Resets the customizable subset to the whole list, drops the badges of removed tabs, and selects
    /// the previous tab if present, else the same index if valid, else the first. A selected More stays
    /// selected while the new list still needs More. Refused while customizing.
    public func setTabIDs(_ tabs: [TabID]) throws(TabBarError) {
        guard !isCustomizing else { throw TabBarError.customizing }
        try checkNoDuplicates(tabs)
        let oldTabs = tabIDs
        tabIDs = tabs
        customizableTabIDs = tabs
        badgeValues = badgeValues.filter { tabs.contains($0.key) }
        selection = Self.selectionAfterAssignment(
            previous: selection, oldTabs: oldTabs, newTabs: tabs, maxVisible: maxVisible)
        observers.send(.tabsAssigned(tabs))
        observers.reportSelection(selection, by: .tabsAssigned)
    }

    /// Sets the customizable subset (kept in list order). Every tab must be in the list, once.
    public func setCustomizableTabIDs(_ tabs: [TabID]) throws(TabBarError) {
        try checkNoDuplicates(tabs)
        if let unknown = tabs.first(where: { !tabIDs.contains($0) }) {
            throw TabBarError.unknownTab(unknown)
        }
        customizableTabIDs = tabIDs.filter(tabs.contains)
    }

    /// Changes how many items the bar shows (at least 2: one tab and More). If More was selected and is
    /// no longer shown, the first tab is selected.
    public func setMaxVisible(_ value: Int) throws(TabBarError) {
        guard value >= 2 else { throw TabBarError.invalidMaxVisible(value) }
        maxVisible = value
        if selection == .more && !showsMore {
            selection = tabIDs.first.map(Selection.tab) ?? .none
            observers.reportSelection(selection, by: .programmatic)
        }
    }

    /// Whether the bar shows a More item: the list is longer than ``maxVisible``.
    public var showsMore: Bool { tabIDs.count > maxVisible }

    /// The tabs with their own button on the bar.
    public var visibleTabIDs: [TabID] { showsMore ? Array(tabIDs.prefix(maxVisible - 1)) : tabIDs }

    /// The tabs listed under More.
    public var moreTabIDs: [TabID] { showsMore ? Array(tabIDs.dropFirst(maxVisible - 1)) : [] }

    // MARK: Selection

    /// The index of the selected tab in ``tabIDs``, also for a tab under More; nil while More is
    /// selected or nothing is. Setting it selects programmatically; nil or an index out of range is
    /// ignored, as UIKit ignores `NSNotFound` and invalid indexes.
    public var selectedIndex: Int? {
        get {
            guard case .tab(let tab) = selection else { return nil }
            return tabIDs.firstIndex(of: tab)
        }
        set {
            guard let index = newValue, tabIDs.indices.contains(index) else { return }
            selection = .tab(tabIDs[index])
            observers.reportSelection(selection, by: .programmatic)
        }
    }

    /// Selects programmatically: no delegate call. `.more` needs a More item; `.none` an empty list.
    public func setSelection(_ selection: Selection) throws(TabBarError) {
        switch selection {
        case .tab(let tab):
            guard tabIDs.contains(tab) else { throw TabBarError.unknownTab(tab) }
        case .more:
            guard showsMore else { throw TabBarError.noMoreItem }
        case .none:
            guard tabIDs.isEmpty else { throw TabBarError.emptySelectionNotAllowed }
        }
        self.selection = selection
        observers.reportSelection(selection, by: .programmatic)
    }

    /// The user taps `item`: a button on the bar, More, or a row in More's list. Asks the delegate's
    /// `shouldSelect`; if it agrees, selects and reports `didSelect` (even when already selected).
    ///
    /// - Returns: false when the delegate refused; nothing changed then.
    @discardableResult
    public func userTap(_ item: TabBarItem) throws(TabBarError) -> Bool {
        guard !isCustomizing else { throw TabBarError.customizing }
        switch item {
        case .tab(let tab):
            guard tabIDs.contains(tab) else { throw TabBarError.unknownTab(tab) }
        case .more:
            guard showsMore else { throw TabBarError.noMoreItem }
        }
        guard delegate?.tabBarController(self, shouldSelect: item) ?? true else { return false }
        selection = item.selection
        observers.reportSelection(selection, by: .userTap)
        delegate?.tabBarController(self, didSelect: item)
        return true
    }

    // MARK: Badges

    /// The badge text of a tab's item, nil when it has none or the tab is not in the list.
    public func badgeValue(for tab: TabID) -> String? { badgeValues[tab] }

    /// Sets or clears (nil) the badge text of a tab's item.
    public func setBadgeValue(_ value: String?, for tab: TabID) throws(TabBarError) {
        guard tabIDs.contains(tab) else { throw TabBarError.unknownTab(tab) }
        badgeValues[tab] = value
    }

    // MARK: Observation

    /// Calls `handler` after every assignment, selection change and end of customizing.
    public func observeChanges(_ handler: @escaping @MainActor (TabBarHostEvent) -> Void) -> TabBarObservation
    {
        observers.add(handler)
    }

    func reportCustomizingEnded(changed: Bool) {
        observers.send(.customizingEnded(changed: changed, order: tabIDs))
    }

    /// UIKit's rule: the previous tab by identity, else the same index, else the first.
    static func selectionAfterAssignment(
        previous: Selection, oldTabs: [TabID], newTabs: [TabID], maxVisible: Int
    ) -> Selection {
        guard let first = newTabs.first else { return .none }
        switch previous {
        case .tab(let tab):
            if newTabs.contains(tab) { return .tab(tab) }
            if let index = oldTabs.firstIndex(of: tab), newTabs.indices.contains(index) {
                return .tab(newTabs[index])
            }
            return .tab(first)
        case .more:
            // The More controller is the previous selection; it is still present while More is shown.
            return newTabs.count > maxVisible ? .more : .tab(first)
        case .none:
            return .tab(first)
        }
    }
}
