/// One register of a document: a key, its value, and who wrote it when.
///
/// Last writer wins compares (stamp, origin), then dot, then value bytes, so the order is total.
///
/// ```swift
/// for entry in document.entries { print(entry.key, entry.stamp, entry.dot) }
/// ```
public struct Entry: Hashable, Sendable {
    /// What the entry is about. The canonical (encoding) order is the declaration order of the cases,
    /// then the tab (byte-wise), then the replica.
    public enum Key: Hashable, Comparable, Sendable {
        /// A tab's fractional position key.
        case position(TabID)
        /// A tab's customizable flag.
        case customizable(TabID)
        /// A tab's hidden flag.
        case hidden(TabID)
        /// The selection of the bar.
        case selection
        /// A tab's badge text.
        case badgeText(TabID)
        /// A tab's last absolute badge count.
        case badgeReset(TabID)
        /// One replica's running total of increments to a tab's badge.
        case badgeIncrements(TabID, ReplicaID)
        /// The observed-remove clear of the bar.
        case cleared
    }

    /// The value of an entry; each key takes one kind (or `removed`).
    public enum Value: Hashable, Sendable {
        /// A key in one bar-wide fractional order (1–32 bytes, last byte nonzero), as stores written
        /// before ``TabPlace`` hold it. Still read; never written any more.
        case position([UInt8])
        /// Where a moved tab stands: in a gap of the catalog's default order, ordered by a key there.
        case place(TabPlace)
        /// A customizable or hidden flag.
        case flag(Bool)
        /// A selection.
        case selection(Selection)
        /// Badge text, or none.
        case text(String?)
        /// An absolute count and the increment totals it had seen, per replica, with the sequence of
        /// the dot that wrote each (empty in documents written before clears kept badge totals).
        case badgeReset(count: Int64, seen: [ReplicaID: Int64], sequences: [ReplicaID: UInt64] = [:])
        /// A replica's running total of increments.
        case badgeTotal(Int64)
        /// The version vector a clear had seen, and the badge totals it had seen (it covers those
        /// increments, so they never count again).
        case context(VersionVector, badges: [BadgeMark])
        /// The entry was removed by a clear whose context covers its dot; it keeps its stamp so that
        /// older writes it had beaten stay beaten.
        case removed
    }

    /// What the entry is about.
    public var key: Key
    /// Its value.
    public var value: Value
    /// When it was written.
    public var stamp: Stamp
    /// Which replica wrote it.
    public var origin: ReplicaID
    /// The event that wrote it.
    public var dot: Dot

    /// An entry.
    public init(key: Key, value: Value, stamp: Stamp, origin: ReplicaID, dot: Dot) {
        self.key = key
        self.value = value
        self.stamp = stamp
        self.origin = origin
        self.dot = dot
    }
}
