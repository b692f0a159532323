#if canImport(UIKit) && (os(iOS) || os(visionOS))
    public import TabKeep
    public import UIKit

    /// A `UITabBarController` that is a ``TabKeep/TabBarHost``, so a coordinator can re-apply a stored
    /// arrangement to it and record what the user does.
    ///
    /// It names its view controllers by ``TabKeep/TabID`` through two closures the app gives: one makes
    /// the controller of a tab, the other tells which tab a controller is. It reports every assignment
    /// of `viewControllers` (whoever makes it, through either setter) so the customizable subset UIKit
    /// resets can always be re-applied, every selection change, and the end of customizing. Setting
    /// `delegate` keeps working: the app's delegate receives every call, through a forwarder.
    ///
    /// ```swift
    /// let tabBarController = PersistentTabBarController(
    ///     viewController: { id in screens.controller(for: id) },
    ///     tabID: { controller in screens.id(of: controller) })
    /// tabBarController.delegate = self  // still called for everything; see forwardedDelegate
    /// ```
    ///
    /// Every rule of the tab bar lives in `TabKeep`; this class only translates between view controllers
    /// and tab ids.
    open class PersistentTabBarController: UITabBarController, TabBarHost {
        /// How many items this bar shows before it needs More: 5 on a compact-width bar, as UIKit
        /// documents. Set it where your idiom shows more.
        public var maxVisible: Int

        private let makeViewController: @MainActor (TabID) -> UIViewController
        private let identify: @MainActor (UIViewController) -> TabID?
        private let observers = TabBarObservers()
        private let forwarder = TabBarDelegateForwarder()
        // Nesting depth of overridden setters: UIKit may route one through another; report once, at the end.
        private var reportingDepth = 0
        // Between the delegate's shouldSelect (answered yes) and didSelect: a selection now is the user's.
        private var userTapInProgress = false

        /// Makes a controller with no tabs.
        ///
        /// - Parameters:
        ///   - maxVisible: How many items the bar shows before it needs More.
        ///   - viewController: Makes the view controller of a tab, called for tabs not already in the list.
        ///   - tabID: The tab a view controller shows; nil for one that is not a tab of this bar.
        public init(
            maxVisible: Int = 5,
            viewController: @escaping @MainActor (TabID) -> UIViewController,
            tabID: @escaping @MainActor (UIViewController) -> TabID?
        ) {
            self.maxVisible = maxVisible
            self.makeViewController = viewController
            self.identify = tabID
            super.init(nibName: nil, bundle: nil)
            forwarder.host = self
            super.delegate = forwarder
        }

        /// Unavailable: the view controller closures cannot come from a storyboard.
        @available(*, unavailable, message: "use init(maxVisible:viewController:tabID:)")
        public required init?(coder: NSCoder) {
            fatalError("PersistentTabBarController: use init(maxVisible:viewController:tabID:)")
        }

        // MARK: UIKit overrides that report

        /// Sets the app's delegate, which then receives every delegate call (read it back from
        /// ``forwardedDelegate``). Reading `delegate` returns the forwarder UIKit talks to, because
        /// UIKit reads this property to find whom to call.
        public override var delegate: (any UITabBarControllerDelegate)? {
            get { super.delegate }
            set {
                guard newValue !== forwarder else { return }  // assigning the forwarder to itself would loop
                forwarder.target = newValue
                // UIKit may cache which optional methods a delegate implements: hand it the forwarder anew.
                super.delegate = nil
                super.delegate = forwarder
            }
        }

        /// The delegate the app set through `delegate`; it receives every delegate call.
        public var forwardedDelegate: (any UITabBarControllerDelegate)? { forwarder.target }

        /// The view controllers; assigning them reports ``TabKeep/TabBarHostEvent/tabsAssigned(_:)``.
        public override var viewControllers: [UIViewController]? {
            get { super.viewControllers }
            set { reportingAssignment { super.viewControllers = newValue } }
        }

        /// Assigns the view controllers and reports ``TabKeep/TabBarHostEvent/tabsAssigned(_:)``.
        public override func setViewControllers(_ viewControllers: [UIViewController]?, animated: Bool) {
            reportingAssignment { super.setViewControllers(viewControllers, animated: animated) }
        }

        /// The selected index; setting it reports a programmatic selection change.
        public override var selectedIndex: Int {
            get { super.selectedIndex }
            set { reportingSelection { super.selectedIndex = newValue } }
        }

        /// The selected view controller; setting it reports a programmatic selection change.
        public override var selectedViewController: UIViewController? {
            get { super.selectedViewController }
            set { reportingSelection { super.selectedViewController = newValue } }
        }

        // MARK: TabBarHost

        /// The tabs of `viewControllers`, in order; controllers without a tab id are left out.
        public var tabIDs: [TabID] { (viewControllers ?? []).compactMap(identify) }

        /// Assigns `viewControllers`, reusing the controllers of tabs already in the list.
        public func setTabIDs(_ tabs: [TabID]) throws(TabBarError) {
            try checkNoDuplicates(tabs)
            var current: [TabID: UIViewController] = [:]
            for controller in viewControllers ?? [] {
                if let tab = identify(controller) { current[tab] = controller }
            }
            // Reusing controllers keeps UIKit's selection-by-identity working across assignments.
            setViewControllers(tabs.map { current[$0] ?? makeViewController($0) }, animated: false)
        }

        /// The tabs of `customizableViewControllers`, in list order.
        public var customizableTabIDs: [TabID] {
            let customizable = customizableViewControllers ?? []
            return (viewControllers ?? []).filter { controller in customizable.contains { $0 === controller }
            }
            .compactMap(identify)
        }

        /// Sets `customizableViewControllers` to the controllers of `tabs`.
        public func setCustomizableTabIDs(_ tabs: [TabID]) throws(TabBarError) {
            try checkNoDuplicates(tabs)
            var controllers: [UIViewController] = []
            for tab in tabs {
                guard let controller = viewController(for: tab) else { throw TabBarError.unknownTab(tab) }
                controllers.append(controller)
            }
            let wanted = Set(tabs)
            customizableViewControllers = (viewControllers ?? []).filter {
                identify($0).map(wanted.contains) ?? false
            }
        }

        /// `.more` while the More navigation controller is selected, else the selected controller's tab.
        public var selection: Selection {
            guard let selected = selectedViewController else { return .none }
            if selected === moreNavigationController { return .more }
            return identify(selected).map(Selection.tab) ?? .none
        }

        /// Sets `selectedViewController`: the tab's controller, or the More navigation controller.
        public func setSelection(_ selection: Selection) throws(TabBarError) {
            switch selection {
            case .tab(let tab):
                guard let controller = viewController(for: tab) else { throw TabBarError.unknownTab(tab) }
                selectedViewController = controller
            case .more:
                guard (viewControllers ?? []).count > maxVisible else { throw TabBarError.noMoreItem }
                selectedViewController = moreNavigationController
            case .none:
                guard (viewControllers ?? []).isEmpty else { throw TabBarError.emptySelectionNotAllowed }
            }
        }

        /// The `badgeValue` of the tab's `tabBarItem`.
        public func badgeValue(for tab: TabID) -> String? {
            viewController(for: tab)?.tabBarItem.badgeValue
        }

        /// Sets the `badgeValue` of the tab's `tabBarItem`.
        public func setBadgeValue(_ value: String?, for tab: TabID) throws(TabBarError) {
            guard let controller = viewController(for: tab) else { throw TabBarError.unknownTab(tab) }
            controller.tabBarItem.badgeValue = value
        }

        /// Calls `handler` after every assignment, selection change and end of customizing.
        public func observeChanges(
            _ handler: @escaping @MainActor (TabBarHostEvent) -> Void
        ) -> TabBarObservation {
            observers.add(handler)
        }

        // MARK: Reporting

        private func viewController(for tab: TabID) -> UIViewController? {
            (viewControllers ?? []).first { identify($0) == tab }
        }

        private func reportingAssignment(_ assign: () -> Void) {
            reportingDepth += 1
            assign()
            reportingDepth -= 1
            guard reportingDepth == 0 else { return }
            observers.send(.tabsAssigned(tabIDs))
            observers.reportSelection(selection, by: .tabsAssigned)
        }

        private func reportingSelection(_ select: () -> Void) {
            reportingDepth += 1
            select()
            reportingDepth -= 1
            guard reportingDepth == 0 else { return }
            observers.reportSelection(selection, by: userTapInProgress ? .userTap : .programmatic)
            userTapInProgress = false
        }

        func userWillSelect() {
            userTapInProgress = true
        }

        func userDidSelect() {
            userTapInProgress = false
            observers.reportSelection(selection, by: .userTap)
        }

        func customizingDidEnd(_ viewControllers: [UIViewController], changed: Bool) {
            observers.send(.customizingEnded(changed: changed, order: viewControllers.compactMap(identify)))
        }
    }
#endif
