/// A clear the document holds: a bar reset or a profile erase, who ran it, when, and what it covered.
///
/// A clear covers every entry whose dot its context holds: those entries are gone (kept only as
/// tombstones), and edits it never saw survive it.
///
/// ```swift
/// for clear in try store.explain(alice)!.clears {
///     print("cleared by \(clear.provenance.origin) at \(clear.provenance.date): \(clear.covered)")
/// }
/// ```
public struct ClearExplanation: Hashable, Sendable {
    /// Who ran it, and when (the latest clear, when several merged).
    public var provenance: Provenance
    /// The version vector it had seen: every entry whose dot this covers was cleared.
    public var covered: VersionVector
    /// The catalog tabs (current ids) that still hold an entry it removed, sorted.
    public var removedTabs: [TabID]
    /// Whether it removed the stored selection.
    public var removedSelection: Bool
    /// The badge increment totals it had seen, per tab and replica (increments it covers); empty
    /// when the document does not record them.
    public var badgeTotals: [TabID: [ReplicaID: Int64]]
}
