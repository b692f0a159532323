/// Where a moved tab stands: in the gap that follows one slot of the catalog's default order,
/// ordered by a fractional key among the other tabs moved into that gap.
///
/// A slot is a tab's place in the catalog's default order; it stays where it is whether its tab is
/// there or has moved away. Tabs that were never moved stand in their own slots, so a move names its
/// place by tab identity and never needs keys for the tabs around it: nothing is written for them,
/// and devices whose catalogs differ (one has a tab the other lacks) agree on every move.
///
/// ```swift
/// // "inbox" moved right after the slot of "home", before every other tab moved there.
/// let place = TabPlace(after: try TabID("home"), next: try TabID("search"), key: [0x80, 1])
/// ```
public struct TabPlace: Hashable, Sendable {
    /// The slot whose gap holds the tab; nil for the gap before the first slot.
    public var after: TabID?
    /// The first unmoved tab after the tab when it was placed. Where a catalog lacks `after`, the tab
    /// stands in the gap just before this tab's slot instead.
    public var next: TabID?
    /// The order within the gap: 1 to ``TabPlace/maxKeyLength`` bytes, the last one nonzero. A key
    /// ends in its writer's replica id (and, written by this version, two bytes naming its gap before
    /// it), so two devices never write the same key.
    public var key: [UInt8]

    /// A place.
    public init(after: TabID?, next: TabID?, key: [UInt8]) {
        self.after = after
        self.next = next
        self.key = key
    }

    /// The longest key. Each move into one gap costs at most one bit of key in the worst pattern, so
    /// this holds several thousand moves into a single gap before that gap is re-spaced.
    public static let maxKeyLength = 512
}

/// A badge total that a clear had seen: the clear covers those increments, so a replica's later
/// increments count only from that total on.
public struct BadgeMark: Hashable, Sendable, Comparable {
    /// The badge's tab.
    public var tab: TabID
    /// The replica whose running total it is.
    public var replica: ReplicaID
    /// The total the clear had seen.
    public var total: Int64
    /// The sequence of the dot that wrote that total: of two marks for one (tab, replica), the
    /// higher sequence saw more.
    public var sequence: UInt64

    /// A mark.
    public init(tab: TabID, replica: ReplicaID, total: Int64, sequence: UInt64) {
        self.tab = tab
        self.replica = replica
        self.total = total
        self.sequence = sequence
    }

    /// Ordered by (tab, replica): the canonical order of a clear's marks.
    public static func < (lhs: BadgeMark, rhs: BadgeMark) -> Bool {
        lhs.tab == rhs.tab ? lhs.replica < rhs.replica : lhs.tab < rhs.tab
    }

    /// Merges two canonical lists: per (tab, replica), the mark with the higher sequence.
    static func merge(_ left: [BadgeMark], _ right: [BadgeMark]) -> [BadgeMark] {
        if left.isEmpty { return right }
        if right.isEmpty || left == right { return left }
        var result: [BadgeMark] = []
        result.reserveCapacity(max(left.count, right.count))
        var mine = 0
        var theirs = 0
        while mine < left.count || theirs < right.count {
            if theirs == right.count || (mine < left.count && left[mine] < right[theirs]) {
                result.append(left[mine])
                mine += 1
            } else if mine == left.count || right[theirs] < left[mine] {
                result.append(right[theirs])
                theirs += 1
            } else {
                let a = left[mine]
                let b = right[theirs]
                result.append(
                    b.sequence > a.sequence || (b.sequence == a.sequence && b.total > a.total) ? b : a)
                mine += 1
                theirs += 1
            }
        }
        return result
    }
}
