/// Who is writing: the replica, its clock and its last used sequence number.
///
/// The store keeps one of these, persisted in `meta`; tests make their own per simulated replica.
/// Not API (`package`): apps edit through ``TabKeepStore``, which owns the one replica of a store,
/// so no dot or stamp is ever issued that the store's vectors and clock do not know.
///
/// ```swift
/// var replica = Replica(id: .random())
/// let (stamp, dot) = replica.next()
/// ```
package struct Replica: Hashable, Sendable {
    /// The replica id.
    package let id: ReplicaID
    /// Its hybrid logical clock.
    package var clock: HybridLogicalClock
    /// The last dot sequence issued.
    package var sequence: UInt64

    /// A replica with its clock and last sequence.
    package init(id: ReplicaID, clock: HybridLogicalClock = .init(), sequence: UInt64 = 0) {
        self.id = id
        self.clock = clock
        self.sequence = sequence
    }

    /// Takes the next dot and a fresh stamp.
    package mutating func next(
        wallMilliseconds: UInt64 = HybridLogicalClock.wallMilliseconds()
    ) -> (stamp: Stamp, dot: Dot) {
        sequence += 1
        return (clock.tick(wallMilliseconds: wallMilliseconds), Dot(replica: id, sequence: sequence))
    }
}
