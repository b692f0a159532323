/// Who is writing: the replica, its clock and its last used sequence number.
///
/// The store keeps one of these, persisted in `meta`; tests make their own per simulated replica.
///
/// ```swift
/// var replica = Replica(id: .random())
/// let (stamp, dot) = replica.next()
/// ```
public struct Replica: Hashable, Sendable {
    /// The replica id.
    public let id: ReplicaID
    /// Its hybrid logical clock.
    public var clock: HybridLogicalClock
    /// The last dot sequence issued.
    public var sequence: UInt64

    /// A replica with its clock and last sequence.
    public init(id: ReplicaID, clock: HybridLogicalClock = .init(), sequence: UInt64 = 0) {
        self.id = id
        self.clock = clock
        self.sequence = sequence
    }

    /// Takes the next dot and a fresh stamp.
    public mutating func next(
        wallMilliseconds: UInt64 = HybridLogicalClock.wallMilliseconds()
    ) -> (stamp: Stamp, dot: Dot) {
        sequence += 1
        return (clock.tick(wallMilliseconds: wallMilliseconds), Dot(replica: id, sequence: sequence))
    }
}
