/// The model's counterpart of `UITabBarControllerDelegate`. Every method has a default: select, and
/// ignore the rest.
@MainActor
public protocol TabBarControllerModelDelegate: AnyObject {
    /// The user tapped `item`; return false to keep the current selection. Never asked for programmatic
    /// selection.
    func tabBarController(_ controller: TabBarControllerModel, shouldSelect item: TabBarItem) -> Bool
    /// The user's tap selected `item` (also when it was already selected). Never called for
    /// programmatic selection.
    func tabBarController(_ controller: TabBarControllerModel, didSelect item: TabBarItem)
    /// A customizing session is about to open over `tabs`.
    func tabBarController(_ controller: TabBarControllerModel, willBeginCustomizing tabs: [TabID])
    /// The session is about to close; `tabs` is the new order, `changed` whether it differs.
    func tabBarController(
        _ controller: TabBarControllerModel, willEndCustomizing tabs: [TabID], changed: Bool)
    /// The session closed; `tabs` is the new order, `changed` whether it differs.
    func tabBarController(_ controller: TabBarControllerModel, didEndCustomizing tabs: [TabID], changed: Bool)
}

extension TabBarControllerModelDelegate {
    /// Allows every tap.
    public func tabBarController(_ controller: TabBarControllerModel, shouldSelect item: TabBarItem) -> Bool {
        true
    }
    /// Does nothing.
    public func tabBarController(_ controller: TabBarControllerModel, didSelect item: TabBarItem) {}
    /// Does nothing.
    public func tabBarController(_ controller: TabBarControllerModel, willBeginCustomizing tabs: [TabID]) {}
    /// Does nothing.
    public func tabBarController(
        _ controller: TabBarControllerModel, willEndCustomizing tabs: [TabID], changed: Bool
    ) {}
    /// Does nothing.
    public func tabBarController(
        _ controller: TabBarControllerModel, didEndCustomizing tabs: [TabID], changed: Bool
    ) {}
}
