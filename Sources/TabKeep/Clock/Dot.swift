/// One event: the replica that made it and that replica's sequence number for it.
///
/// ```swift
/// let dot = Dot(replica: ReplicaID(rawValue: 7), sequence: 1)
/// VersionVector([dot.replica: 1]).contains(dot)  // true
/// ```
public struct Dot: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Who made the event.
    public var replica: ReplicaID
    /// Its sequence number on that replica, from 1.
    public var sequence: UInt64

    /// A dot.
    public init(replica: ReplicaID, sequence: UInt64) {
        self.replica = replica
        self.sequence = sequence
    }

    /// "replica:sequence".
    public var description: String { "\(replica):\(sequence)" }

    /// By replica, then sequence.
    public static func < (lhs: Dot, rhs: Dot) -> Bool {
        (lhs.replica, lhs.sequence) < (rhs.replica, rhs.sequence)
    }
}
