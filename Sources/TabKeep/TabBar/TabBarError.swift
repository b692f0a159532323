/// Why a tab bar host refused a call. A refused call changes nothing.
///
/// ```swift
/// do {
///     try model.setTabIDs([home, home])
/// } catch .duplicateTab(let tab) {
///     print("listed twice: \(tab)")
/// }
/// ```
public enum TabBarError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The same tab appears twice in a list.
    case duplicateTab(TabID)
    /// The tab is not in the host's tab list.
    case unknownTab(TabID)
    /// The tab is not in the customizable subset, so customizing cannot move it or move onto its place.
    case notCustomizable(TabID)
    /// An index outside `0..<count`.
    case indexOutOfRange(Int, count: Int)
    /// A customizing step was made while no customizing session is open.
    case notCustomizing
    /// The call is not allowed while the user is customizing (the customize sheet is modal).
    case customizing
    /// `.more` was selected but the bar shows no More item (it has `maxVisible` tabs or fewer).
    case noMoreItem
    /// `.none` was selected but the list is not empty: UIKit always selects something then.
    case emptySelectionNotAllowed
    /// `maxVisible` below 2 leaves no room for a tab beside More.
    case invalidMaxVisible(Int)
    /// The tab bar belongs to its controller; UIKit raises an exception for this operation.
    case tabBarManagedByController(operation: String)

    /// A sentence naming what is wrong.
    public var description: String {
        switch self {
        case .duplicateTab(let tab):
            return "tab \"\(tab)\" appears more than once in the list"
        case .unknownTab(let tab):
            return "tab \"\(tab)\" is not in the tab list"
        case .notCustomizable(let tab):
            return "tab \"\(tab)\" is not customizable, so customizing cannot move it or its place"
        case .indexOutOfRange(let index, let count):
            return "index \(index) is out of range for \(count) tabs"
        case .notCustomizing:
            return "no customizing session is open"
        case .customizing:
            return "not allowed while the user is customizing the tab bar"
        case .noMoreItem:
            return "cannot select More: the bar shows no More item"
        case .emptySelectionNotAllowed:
            return "cannot select nothing while the tab list is not empty"
        case .invalidMaxVisible(let value):
            return "maxVisible \(value) is invalid: it must be at least 2"
        case .tabBarManagedByController(let operation):
            return
                "directly modifying a tab bar managed by a tab bar controller is not allowed (\(operation))"
        }
    }
}
