/// The bar a ``TabBarControllerModel`` owns, like `UITabBarController.tabBar`: readable, but every
/// direct edit throws ``TabBarError/tabBarManagedByController(operation:)``, where UIKit raises
/// "Directly modifying a tab bar managed by a tab bar controller is not allowed."
@MainActor
public final class ManagedTabBar {
    private unowned let controller: TabBarControllerModel

    init(controller: TabBarControllerModel) {
        self.controller = controller
    }

    /// The items shown: the visible tabs, then More when the list needs it.
    public var items: [TabBarItem] {
        controller.visibleTabIDs.map(TabBarItem.tab) + (controller.showsMore ? [.more] : [])
    }

    /// The highlighted item: the selected tab's button, or More while More or a tab under it is selected.
    public var selectedItem: TabBarItem? {
        switch controller.selection {
        case .tab(let tab): return controller.visibleTabIDs.contains(tab) ? .tab(tab) : .more
        case .more: return .more
        case .none: return nil
        }
    }

    /// Refused: the controller sets its bar's items from its tab list.
    public func setItems(_ items: [TabBarItem], animated: Bool) throws(TabBarError) {
        throw TabBarError.tabBarManagedByController(operation: "setItems(_:animated:)")
    }

    /// Refused: the controller is its bar's delegate.
    public func setDelegate(_ delegate: AnyObject?) throws(TabBarError) {
        throw TabBarError.tabBarManagedByController(operation: "delegate")
    }
}
