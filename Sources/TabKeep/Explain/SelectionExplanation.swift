/// What is selected, who selected it and when, and what the user sees of it.
///
/// ```swift
/// let selection = try store.explain(alice)!.selection
/// print(selection.shown, selection.provenance?.origin as Any)
/// ```
public struct SelectionExplanation: Hashable, Sendable {
    /// The selection the document holds (renames read through); `.none` when none stands.
    public var stored: Selection
    /// The selection the user sees: the stored one, or `.none` when its tab is hidden or not offered.
    public var shown: Selection
    /// Who selected it, and when; nil when no selection stands.
    public var provenance: Provenance?
}
