/// How explain reads each kind of entry value: one function per kind, and the only place in
/// `Explain/` that matches on `Entry.Value`, so a change of the value encodings is adapted here.
///
/// The switches are exhaustive on purpose: a new value case fails to compile here, not silently
/// explains nothing.
enum EntryReading {
    /// What a position entry says about a tab's place.
    enum Place: Hashable {
        /// A real move; the slot when the value records one.
        case moved(TabExplanation.MoveSlot?)
        /// A pin: written where the tab stood, for another tab's move.
        case pinned
    }

    /// A tab's place from a live position entry; nil for a value of another kind.
    static func place(_ entry: Entry, pins: PinEvidence) -> Place? {
        switch entry.value {
        case .position:
            // The first format: a key in one bar-wide order, which names no slot.
            return pins.isPin(entry) ? .pinned : .moved(nil)
        case .place(let place):
            return .moved(TabExplanation.MoveSlot(after: place.after, next: place.next))
        case .flag, .selection, .text, .badgeReset, .badgeTotal, .context, .removed:
            return nil
        }
    }

    /// A customizable or hidden flag; nil for a value of another kind.
    static func flag(_ value: Entry.Value) -> Bool? {
        switch value {
        case .flag(let flag): return flag
        case .position, .selection, .text, .badgeReset, .badgeTotal, .context, .removed, .place: return nil
        }
    }

    /// A stored selection; nil for a value of another kind.
    static func selection(_ value: Entry.Value) -> Selection? {
        switch value {
        case .selection(let selection): return selection
        case .position, .flag, .text, .badgeReset, .badgeTotal, .context, .removed, .place: return nil
        }
    }

    /// Badge text; `.some(nil)` when the text was removed, nil for a value of another kind.
    static func text(_ value: Entry.Value) -> String?? {
        switch value {
        case .text(let text): return .some(text)
        case .position, .flag, .selection, .badgeReset, .badgeTotal, .context, .removed, .place: return nil
        }
    }

    /// An absolute badge count and the increment totals it had seen; nil for a value of another kind.
    static func badgeReset(_ value: Entry.Value) -> (count: Int64, seen: [ReplicaID: Int64])? {
        switch value {
        case .badgeReset(let count, let seen, _): return (count, seen)
        case .position, .flag, .selection, .text, .badgeTotal, .context, .removed, .place: return nil
        }
    }

    /// One replica's running total of badge increments; nil for a value of another kind.
    static func badgeTotal(_ value: Entry.Value) -> Int64? {
        switch value {
        case .badgeTotal(let total): return total
        case .position, .flag, .selection, .text, .badgeReset, .context, .removed, .place: return nil
        }
    }

    /// A clear's context and the badge totals it had seen (by stored tab id, then replica); nil for a
    /// value of another kind.
    static func clear(_ value: Entry.Value) -> (
        covered: VersionVector, badgeTotals: [TabID: [ReplicaID: Int64]]
    )? {
        switch value {
        case .context(let vector, let badges):
            var totals: [TabID: [ReplicaID: Int64]] = [:]
            for mark in badges { totals[mark.tab, default: [:]][mark.replica] = mark.total }
            return (vector, totals)
        case .position, .flag, .selection, .text, .badgeReset, .badgeTotal, .removed, .place:
            return nil
        }
    }
}

/// Tells a first-format pin from a real move. A pin is written with the lowest stamp, or, over a tombstone
/// a clear left, with the stamp just above the tombstone's: below the clear's stamp, and below a
/// stamp its own replica had already issued for an earlier dot (a real write's stamp never is, since
/// a replica's clock and sequence only go up).
struct PinEvidence {
    /// Per origin: dot sequences, ascending, and the highest stamp among that sequence and all lower.
    private var sequences: [ReplicaID: [UInt64]] = [:]
    private var highest: [ReplicaID: [Stamp]] = [:]
    private let clearStamp: Stamp?

    init(document: TabBarDocument, clearStamp: Stamp?) {
        self.clearStamp = clearStamp
        var byOrigin: [ReplicaID: [(UInt64, Stamp)]] = [:]
        for entry in document.entries {
            byOrigin[entry.dot.replica, default: []].append((entry.dot.sequence, entry.stamp))
        }
        for (origin, events) in byOrigin {
            var running = Stamp.zero
            var sequences: [UInt64] = []
            var highest: [Stamp] = []
            for (sequence, stamp) in events.sorted(by: { $0.0 < $1.0 }) {
                running = max(running, stamp)
                sequences.append(sequence)
                highest.append(running)
            }
            self.sequences[origin] = sequences
            self.highest[origin] = highest
        }
    }

    func isPin(_ entry: Entry) -> Bool {
        if entry.stamp == .zero { return true }
        guard let clearStamp, entry.stamp < clearStamp,
            let sequences = sequences[entry.dot.replica], let highest = highest[entry.dot.replica]
        else { return false }
        // The highest stamp among the replica's events before this one.
        var low = 0
        var high = sequences.count
        while low < high {
            let middle = (low + high) / 2
            if sequences[middle] < entry.dot.sequence { low = middle + 1 } else { high = middle }
        }
        return low > 0 && highest[low - 1] > entry.stamp
    }
}
