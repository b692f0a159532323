/// A badge count as its parts: the absolute count it was last set (reset) to, by whom and when, plus
/// every replica's increments since.
///
/// count = max(0, reset count + Σ over replicas (total − baseline)), where a replica's baseline is
/// the total the reset had seen from it, or, with no reset standing, the total the bar's clear had
/// seen from it (0 when neither saw any).
///
/// ```swift
/// if let badge = tab.badge {
///     print("reset to \(badge.reset?.count ?? 0)")
///     for increment in badge.increments { print("+\(increment.counted) from \(increment.replica)") }
///     print("= \(badge.count)")
/// }
/// ```
public struct BadgeExplanation: Hashable, Sendable {
    /// Where the replicas' baselines come from.
    public enum Baseline: Hashable, Sendable {
        /// Nothing reset the badge: every total counts from zero.
        case none
        /// The standing reset: each total counts from what the reset had seen.
        case reset
        /// No reset stands; the bar's clear recorded the totals it had seen, and each counts from them.
        case clear
    }

    /// The last absolute count a user or the app set.
    public struct Reset: Hashable, Sendable {
        /// The count it set.
        public var count: Int64
        /// The increment totals it had seen, per replica (those increments are in its count).
        public var seen: [ReplicaID: Int64]
        /// Who set it, and when.
        public var provenance: Provenance
    }

    /// One replica's increments.
    public struct Increment: Hashable, Sendable {
        /// The replica (device) that made them.
        public var replica: ReplicaID
        /// Its running total of increments (decrements lower it).
        public var total: Int64
        /// The part of `total` already in the reset's count or covered by the clear.
        public var baseline: Int64
        /// Who wrote the total last (the replica itself), and when.
        public var provenance: Provenance

        /// What these increments add to the count now: `total − baseline`.
        public var counted: Int64 { total - baseline }
    }

    /// The count shown (0 shows no badge).
    public var count: Int64
    /// The standing reset, or nil.
    public var reset: Reset?
    /// Where the baselines come from.
    public var baseline: Baseline
    /// Every replica's increments, by replica id.
    public var increments: [Increment]
}
