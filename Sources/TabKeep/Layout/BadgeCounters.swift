/// One tab's badge counters, read from a document's badge and clear entries into a few small
/// arrays: what a badge edit reads (``ResolvedBar/Extent/badges(_:)``) when the catalog renames
/// nothing. ``ResolvedBar`` fills dictionaries of every tab's counters instead, keyed by tab and
/// replica; that is the slow twin, and `EditFastPathPropertyTests` holds the two to the same
/// documents, replicas and errors.
///
/// The rules are ``ResolvedBar``'s: a live badge set counts from what it had seen of each replica
/// (or from what the clear saw, when the clear's mark is newer by sequence or the set saw none);
/// without a set, each replica counts from what the clear had seen.
struct BadgeCounters {
    /// A live total of one replica, with the sequence of the dot that wrote it; or a clear's mark.
    struct Total {
        var replica: ReplicaID
        var total: Int64
        var sequence: UInt64
    }

    /// The tab's live badge set: its count, what it had seen of each replica, and by which sequence.
    private(set) var reset: (count: Int64, seen: [ReplicaID: Int64], sequences: [ReplicaID: UInt64])?
    /// The tab's live totals, one per replica, in replica order (the entries' order).
    private(set) var totals: [Total] = []
    /// The clear's marks for the tab, one per replica (the last one listed wins, as in ``ResolvedBar``).
    private(set) var marks: [Total] = []

    /// The counters of `tab` in `document`, whose entries name tabs as the catalog does (no renames).
    init(document: TabBarDocument, tab: TabID) {
        let storage = document.storage
        var index = document.firstIndex(ofKindAtLeast: .badgeReset)
        while index < storage.count {
            let entry = storage[index]
            index += 1
            switch (entry.key, entry.value) {
            case (.badgeReset(let id), .badgeReset(let count, let seen, let sequences)) where id == tab:
                reset = (count, seen, sequences)
            case (.badgeIncrements(let id, let replica), .badgeTotal(let total)) where id == tab:
                totals.append(Total(replica: replica, total: total, sequence: entry.dot.sequence))
            case (.cleared, .context(_, let badges)):
                for mark in badges where mark.tab == tab {
                    let found = Total(replica: mark.replica, total: mark.total, sequence: mark.sequence)
                    if let at = marks.firstIndex(where: { $0.replica == mark.replica }) {
                        marks[at] = found
                    } else {
                        marks.append(found)
                    }
                }
            default:
                continue
            }
        }
    }

    /// The clear's mark of `replica`, if any.
    private func mark(_ replica: ReplicaID) -> Total? {
        marks.first { $0.replica == replica }
    }

    /// The total `replica` has counted so far: its live entry, else what the clear saw of it.
    func currentTotal(_ replica: ReplicaID) -> Int64 {
        totals.first { $0.replica == replica }?.total ?? mark(replica)?.total ?? 0
    }

    /// Every replica's current total with the sequence that wrote it (what a badge set records as seen).
    func currentTotals() -> (totals: [ReplicaID: Int64], sequences: [ReplicaID: UInt64]) {
        var result: [ReplicaID: Int64] = [:]
        var sequences: [ReplicaID: UInt64] = [:]
        for mark in marks {
            result[mark.replica] = mark.total
            sequences[mark.replica] = mark.sequence
        }
        for live in totals {
            result[live.replica] = live.total
            sequences[live.replica] = live.sequence
        }
        return (result, sequences)
    }

    /// The sum before clamping: below zero after concurrent decrements that together took too much.
    var rawCount: Int64 {
        var count = reset?.count ?? 0
        for live in totals { count += live.total - baseline(live.replica) }
        return count
    }

    /// The total a replica's increments count from (``ResolvedBar/badgeBaseline(_:_:)``).
    func baseline(_ replica: ReplicaID) -> Int64 {
        let mark = mark(replica)
        guard let reset else { return mark?.total ?? 0 }
        guard let seen = reset.seen[replica] else { return mark?.total ?? 0 }
        if let mark, let sequence = reset.sequences[replica], mark.sequence > sequence { return mark.total }
        return seen
    }
}
