public import Foundation

/// Who wrote one fact of a tab bar, and when: the stamp, origin replica and dot of the entry behind it.
///
/// A replica is one copy of the store, so in support terms the origin is the device that made the
/// edit. `isThisDevice` says whether that is the store the explanation was read from.
///
/// ```swift
/// if let explanation = try store.explain(alice) {
///     for tab in explanation.tabs {
///         if case .moved(let provenance, _) = tab.place {
///             print(tab.tab, provenance.origin, provenance.date, provenance.isThisDevice)
///         }
///     }
/// }
/// ```
public struct Provenance: Hashable, Sendable {
    /// The entry's hybrid logical clock stamp.
    public var stamp: Stamp
    /// The replica (device) that wrote the entry.
    public var origin: ReplicaID
    /// The event that wrote it: origin and that replica's sequence number.
    public var dot: Dot
    /// Whether `origin` is the store the explanation was read from.
    public var isThisDevice: Bool
    /// The tab id the entry was written under when the catalog has since renamed that tab
    /// (`"chat"` for an entry now read as `"messages"`); nil when written under the current id.
    public var writtenAs: TabID?

    /// Wall time of the stamp (its milliseconds since 1970).
    public var date: Date {
        Date(timeIntervalSince1970: Double(stamp.milliseconds) / 1000)
    }

    /// Whether the stamp carries a wall time: pins are written with the lowest stamp, which does not.
    public var hasTime: Bool { stamp.milliseconds != 0 }

    init(_ entry: Entry, thisDevice: ReplicaID, writtenAs: TabID? = nil) {
        stamp = entry.stamp
        origin = entry.origin
        dot = entry.dot
        isThisDevice = entry.origin == thisDevice
        self.writtenAs = writtenAs
    }
}
