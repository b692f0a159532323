/// A tab bar controller as a coordinator sees it: the headless ``TabBarControllerModel`` and, in
/// `TabKeepUIKit`, `PersistentTabBarController` (a `UITabBarController`) both satisfy it.
///
/// Tabs are named by ``TabID``. A host reports to its observers every change a coordinator must follow:
/// each assignment of the tab list (which resets the customizable subset to the whole list, whoever
/// made it), each selection change and its source, and the end of each customizing session.
///
/// ```swift
/// let observation = host.observeChanges { event in
///     if case .tabsAssigned(let tabs) = event {
///         try? host.setCustomizableTabIDs(stored.filter(tabs.contains))  // UIKit just reset it
///     }
/// }
/// ```
@MainActor
public protocol TabBarHost: AnyObject {
    /// The tab list, in bar order (the tabs under More follow the shown ones).
    var tabIDs: [TabID] { get }

    /// Assigns the tab list, like `setViewControllers(_:animated:)`: resets the customizable subset to
    /// the whole list and applies UIKit's selection fallback. Reports ``TabBarHostEvent/tabsAssigned(_:)``.
    func setTabIDs(_ tabs: [TabID]) throws(TabBarError)

    /// The tabs the user may move when customizing, in list order.
    var customizableTabIDs: [TabID] { get }

    /// Sets the customizable subset; every tab must be in the list.
    func setCustomizableTabIDs(_ tabs: [TabID]) throws(TabBarError)

    /// What is selected: a tab (shown or under More), More itself, or nothing when the list is empty.
    var selection: Selection { get }

    /// Selects programmatically: asks the delegate nothing and tells it nothing, but reports
    /// ``TabBarHostEvent/selectionChanged(_:by:)`` to observers when the selection changes.
    func setSelection(_ selection: Selection) throws(TabBarError)

    /// The badge text of a tab's item, nil when it has none.
    func badgeValue(for tab: TabID) -> String?

    /// Sets or clears (nil) the badge text of a tab's item.
    func setBadgeValue(_ value: String?, for tab: TabID) throws(TabBarError)

    /// How many items the bar shows: with more tabs it shows the first `maxVisible − 1` and More.
    var maxVisible: Int { get }

    /// Calls `handler` synchronously after every change listed in ``TabBarHostEvent``, until the
    /// returned observation is cancelled. The handler may call back into the host.
    func observeChanges(_ handler: @escaping @MainActor (TabBarHostEvent) -> Void) -> TabBarObservation
}

/// A change a ``TabBarHost`` reports to its observers.
public enum TabBarHostEvent: Hashable, Sendable {
    /// The tab list was assigned (by the app, a coordinator or UIKit), so the customizable subset is
    /// now the whole list. Sent for every assignment, even of an identical list.
    case tabsAssigned([TabID])
    /// The selection changed to the given value. Not sent when it stays the same.
    case selectionChanged(Selection, by: SelectionChangeSource)
    /// A customizing session ended. `order` is the tab list afterwards; `changed` says whether it
    /// differs from the order when the session began.
    case customizingEnded(changed: Bool, order: [TabID])
}

/// What made a selection change.
public enum SelectionChangeSource: Hashable, Sendable {
    /// The user tapped an item (the delegate was asked and told).
    case userTap
    /// The app or a coordinator selected in code.
    case programmatic
    /// The controller's own fallback after the tab list was assigned (the selected tab was removed).
    case tabsAssigned
}

/// A registration made by ``TabBarHost/observeChanges(_:)``; it lasts until ``cancel()``.
@MainActor
public final class TabBarObservation {
    private var cancelAction: (@MainActor () -> Void)?

    init(cancel: @escaping @MainActor () -> Void) {
        cancelAction = cancel
    }

    /// Stops the handler from being called. Calling it again does nothing.
    public func cancel() {
        cancelAction?()
        cancelAction = nil
    }
}
