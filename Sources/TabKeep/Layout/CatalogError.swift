/// A catalog that cannot be used: what is wrong with it.
///
/// ```swift
/// do { _ = try Catalog([tab, tab]) } catch { print(error) }  // tab "inbox" appears twice
/// ```
public enum CatalogError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The same tab twice.
    case duplicateTab(TabID)
    /// More tabs than a bar holds (256).
    case tooManyTabs(Int)
    /// Renames that lead back to where they started.
    case renameCycle(TabID)
    /// A tab renamed away that the catalog still lists.
    case renamedTabStillListed(TabID)
    /// More renames than a catalog holds (256).
    case tooManyRenames(Int)

    /// A sentence naming the problem.
    public var description: String {
        switch self {
        case .duplicateTab(let tab): "tab \"\(tab)\" appears twice in the catalog"
        case .tooManyTabs(let count): "\(count) tabs; a catalog holds at most \(Catalog.maxTabs)"
        case .renameCycle(let tab): "renames starting at \"\(tab)\" form a cycle"
        case .renamedTabStillListed(let tab): "tab \"\(tab)\" is renamed but still listed"
        case .tooManyRenames(let count): "\(count) renames; a catalog holds at most \(Catalog.maxTabs)"
        }
    }
}
