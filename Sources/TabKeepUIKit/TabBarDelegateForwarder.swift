#if canImport(UIKit) && (os(iOS) || os(visionOS))
    import UIKit

    /// The delegate `PersistentTabBarController` gives UIKit. It passes every call on to the app's own
    /// delegate (`target`) and tells the controller about taps and customizing.
    ///
    /// The five methods the controller needs are implemented here; every other method the app's
    /// delegate implements (transitions, orientations, the `UITab` methods) reaches it through
    /// `responds(to:)` and `forwardingTarget(for:)`, so nothing is lost, including methods added later.
    @MainActor
    final class TabBarDelegateForwarder: NSObject, UITabBarControllerDelegate {
        // nonisolated(unsafe): NSObject's responds(to:) and forwardingTarget(for:) are nonisolated; UIKit
        // calls them, like every delegate method, on the main thread only.
        nonisolated(unsafe) weak var target: (any UITabBarControllerDelegate)?
        weak var host: PersistentTabBarController?

        func tabBarController(
            _ tabBarController: UITabBarController, shouldSelect viewController: UIViewController
        ) -> Bool {
            let allowed = target?.tabBarController?(tabBarController, shouldSelect: viewController) ?? true
            if allowed { host?.userWillSelect() }
            return allowed
        }

        func tabBarController(
            _ tabBarController: UITabBarController, didSelect viewController: UIViewController
        ) {
            host?.userDidSelect()
            target?.tabBarController?(tabBarController, didSelect: viewController)
        }

        func tabBarController(
            _ tabBarController: UITabBarController, willBeginCustomizing viewControllers: [UIViewController]
        ) {
            target?.tabBarController?(tabBarController, willBeginCustomizing: viewControllers)
        }

        func tabBarController(
            _ tabBarController: UITabBarController, willEndCustomizing viewControllers: [UIViewController],
            changed: Bool
        ) {
            target?.tabBarController?(tabBarController, willEndCustomizing: viewControllers, changed: changed)
        }

        func tabBarController(
            _ tabBarController: UITabBarController, didEndCustomizing viewControllers: [UIViewController],
            changed: Bool
        ) {
            host?.customizingDidEnd(viewControllers, changed: changed)
            target?.tabBarController?(tabBarController, didEndCustomizing: viewControllers, changed: changed)
        }

        nonisolated override func responds(to aSelector: Selector!) -> Bool {
            super.responds(to: aSelector) || (target?.responds(to: aSelector) ?? false)
        }

        nonisolated override func forwardingTarget(for aSelector: Selector!) -> Any? {
            if let target, target.responds(to: aSelector) { return target }
            return super.forwardingTarget(for: aSelector)
        }
    }
#endif
