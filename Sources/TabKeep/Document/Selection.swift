/// What is selected in a tab bar: a tab, the More tab, or nothing.
///
/// ```swift
/// let selection = Selection.tab(try TabID("inbox"))
/// ```
public enum Selection: Hashable, Sendable {
    /// A tab.
    case tab(TabID)
    /// The More tab.
    case more
    /// Nothing.
    case none
}
