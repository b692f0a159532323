/// An edit that cannot be applied; the document is left unchanged.
///
/// ```swift
/// do { try document.apply(.setBadge(tab, -1), catalog: catalog, by: &replica) }
/// catch { print(error.reason) }  // negativeBadge(-1)
/// ```
public struct EditError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Reason: Hashable, Sendable {
        /// The tab is not in the catalog.
        case unknownTab(TabID)
        /// The tab is in the catalog but not shown (hidden), so it has no index in the shown order.
        case tabNotShown(TabID)
        /// An index outside the shown order.
        case indexOutOfRange(Int, count: Int)
        /// A fixed tab cannot be moved, hidden or made customizable.
        case fixedTab(TabID)
        /// A movable tab cannot be hidden.
        case notHideable(TabID)
        /// A reorder that is not a permutation of the shown tabs.
        case notAPermutation
        /// The same tab twice in a list.
        case duplicateTab(TabID)
        /// An absolute badge count below zero.
        case negativeBadge(Int)
        /// A badge count, delta or resulting total beyond ±2^40.
        case badgeOutOfRange(Int)
        /// Badge text over the limit (the byte count).
        case badgeTextTooLong(Int)
    }

    /// What is wrong.
    public var reason: Reason

    /// An error for `reason`.
    public init(_ reason: Reason) {
        self.reason = reason
    }

    /// A sentence naming the problem.
    public var description: String {
        switch reason {
        case .unknownTab(let tab): "unknown tab \"\(tab)\": not in the catalog"
        case .tabNotShown(let tab): "tab \"\(tab)\" is hidden, not in the shown order"
        case .indexOutOfRange(let index, let count): "index \(index) out of range 0..<\(count)"
        case .fixedTab(let tab): "tab \"\(tab)\" is fixed: it cannot be moved, hidden or customized"
        case .notHideable(let tab): "tab \"\(tab)\" is movable but cannot be hidden"
        case .notAPermutation: "the new order is not a permutation of the shown tabs"
        case .duplicateTab(let tab): "tab \"\(tab)\" appears twice"
        case .negativeBadge(let count): "badge count \(count) is negative"
        case .badgeOutOfRange(let value): "badge value \(value) is out of range (at most 2^40)"
        case .badgeTextTooLong(let bytes): "badge text is \(bytes) UTF-8 bytes, more than 64"
        }
    }
}
