extension TabBarDocument {
    /// Join: commutative, associative, idempotent; deterministic byte for byte.
    ///
    /// Per key, the last writer wins. The clears' contexts merge pointwise (max), and every entry whose
    /// dot the merged context covers becomes a `.removed` tombstone — also entries arriving later.
    /// Tombstones keep their stamp, so a write the clear never saw survives only if it is newer than
    /// what the clear removed (it would have lost to that anyway): this keeps merge associative.
    public mutating func merge(_ other: TabBarDocument) {
        if other.storage.isEmpty { return }
        if storage.isEmpty {
            self = other
            return
        }
        var merged: [Entry] = []
        merged.reserveCapacity(max(storage.count, other.storage.count))
        var mine = 0
        var theirs = 0
        while mine < storage.count || theirs < other.storage.count {
            if theirs == other.storage.count {
                merged.append(storage[mine])
                mine += 1
            } else if mine == storage.count {
                merged.append(other.storage[theirs])
                theirs += 1
            } else {
                let left = storage[mine]
                let right = other.storage[theirs]
                if left.key < right.key {
                    merged.append(left)
                    mine += 1
                } else if right.key < left.key {
                    merged.append(right)
                    theirs += 1
                } else {
                    merged.append(TabBarDocument.join(left, right))
                    mine += 1
                    theirs += 1
                }
            }
        }
        storage = merged
        applyContext()
    }

    /// A copy merged with `other`.
    public func merging(_ other: TabBarDocument) -> TabBarDocument {
        var result = self
        result.merge(other)
        return result
    }

    /// The join of two entries with the same key.
    static func join(_ left: Entry, _ right: Entry) -> Entry {
        if case .context(let leftVector, let leftBadges) = left.value,
            case .context(let rightVector, let rightBadges) = right.value
        {
            var winner = left.beats(right) ? left : right
            var vector = leftVector
            vector.merge(rightVector)
            winner.value = .context(vector, badges: BadgeMark.merge(leftBadges, rightBadges))
            return winner
        }
        return left.beats(right) ? left : right
    }

    /// Turns every entry the clear's context covers into a tombstone.
    mutating func applyContext() {
        guard let last = storage.last, case .context(let context, _) = last.value else { return }
        for index in storage.indices.dropLast()
        where storage[index].value != .removed && context.contains(storage[index].dot) {
            storage[index].value = .removed
        }
    }

    /// Writes local entries: each replaces the entry of its key when it wins (it does: its stamp is
    /// newer than anything the replica has seen, or it is a pin for a key that has no entry).
    mutating func write(_ entries: [Entry]) {
        if entries.isEmpty { return }
        var sorted: [Entry] = []
        for entry in entries.sorted(by: { $0.key < $1.key }) {
            if let last = sorted.last, last.key == entry.key {
                sorted[sorted.count - 1] = TabBarDocument.join(last, entry)
            } else {
                sorted.append(entry)
            }
        }
        merge(TabBarDocument(sorted: sorted))
    }

    /// Writes one local entry in place: the fast twin of ``write(_:)`` for a single entry (a
    /// binary search, then a replace or an insert, instead of a merge into a new array).
    mutating func write(one entry: Entry) {
        var low = 0
        var high = storage.count
        while low < high {
            let middle = (low + high) / 2
            if storage[middle].key < entry.key { low = middle + 1 } else { high = middle }
        }
        if low < storage.count && storage[low].key == entry.key {
            storage[low] = TabBarDocument.join(storage[low], entry)
        } else {
            storage.insert(entry, at: low)
        }
        applyContext()
    }

    /// Folds another profile's document in (guest → account): its live entries merge by the rules
    /// of §3 but get new local dots (and this replica as origin) from `replica`, and a stamp one
    /// tick after their own, so a copy beats everything of the write it copies, cleared or not, and
    /// loses to every later write; its clear is not folded. The guest's places that win get new
    /// keys of this replica, after the account's keys in their gap, so a copy never ties with an
    /// account key. Badge counts add up: the guest's count of each tab is added to this document's
    /// as one increment, since the two profiles' counters are independent (the same device may have
    /// incremented both).
    package mutating func fold(_ other: TabBarDocument, by replica: inout Replica) {
        var folded: [Entry] = []
        for entry in other.storage where entry.key != .cleared && entry.value != .removed {
            switch entry.key {
            case .badgeReset, .badgeIncrements: continue
            default: break
            }
            let (_, dot) = replica.next()
            folded.append(
                Entry(
                    key: entry.key, value: entry.value, stamp: TabBarDocument.copyStamp(entry.stamp),
                    origin: replica.id, dot: dot))
        }
        merge(TabBarDocument(sorted: folded))
        rekeyFoldedPlaces(Set(folded.map(\.dot)), replica: replica.id)

        let guest = ResolvedBar(document: other, catalog: .empty)
        let own = ResolvedBar(document: self, catalog: .empty)
        replica.clock.observe(maxStamp)
        var increments: [Entry] = []
        for tab in Set(guest.totals.keys).union(guest.resets.keys).sorted() {
            let count = guest.badgeCount(tab)
            guard count > 0 else { continue }
            // Over a sum that concurrent decrements pushed below zero, make up the deficit too.
            let total = own.currentTotal(tab, replica.id) + count - min(0, own.rawBadgeCount(tab))
            let (stamp, dot) = replica.next()
            increments.append(
                Entry(
                    key: .badgeIncrements(tab, replica.id), value: .badgeTotal(total), stamp: stamp,
                    origin: replica.id, dot: dot))
        }
        merge(TabBarDocument(sorted: increments))
    }

    /// The stamp of a folded copy: one tick after the write it copies, so the copy counts as made
    /// after it and still before every later write (the milliseconds stay those of the original).
    ///
    /// With the original's stamp the copy would tie with that write's own entry wherever the
    /// account holds it, and the account may hold it as a tombstone: bob merged into alice is
    /// cleared, and when alice is merged back into bob later, each copy meets the tombstone of the
    /// write it copies. A tie falls to the origins, random per replica, so the copy (a write bob's
    /// clear never saw) survived on some pairs of devices and vanished on others. One tick later it
    /// beats every entry of the write it copies, live or removed, the same way on every replica.
    /// Pins keep the lowest stamp: a copied pin must not outrank the account's pins.
    static func copyStamp(_ stamp: Stamp) -> Stamp {
        stamp == .zero || stamp == .last ? stamp : Stamp(rawValue: stamp.rawValue + 1)
    }

    /// Gives the folded places that won (their dots are in `folded`) new keys of `replica`, the
    /// folding one (ending in its gap's suffix): in each gap (the slot they follow), after every
    /// key the account holds there, in the guest's order.
    ///
    /// A replica's keys are unique within one profile only: the same device moving one tab of the
    /// guest and another of the account into one empty gap writes the same key for both. Copied as
    /// they were, the two tie, no key fits between them, and the next move there re-spaces the
    /// whole bar over concurrent moves; and a guest key may still meet an account key its writer
    /// has not synced here yet. A key of the folding replica, chosen against the account document
    /// it folds into, meets neither: this replica's later keys are chosen against it, and other
    /// replicas' end in their own id. The stamps stay (but for one tick), so a copy still wins or
    /// loses against the account's moves of its tab by time.
    mutating func rekeyFoldedPlaces(_ folded: Set<Dot>, replica: ReplicaID) {
        var copies: [TabID?: [(index: Int, place: TabPlace)]] = [:]
        var highest: [TabID?: [UInt8]] = [:]
        for (index, entry) in storage.enumerated() {
            guard case .position = entry.key, case .place(let place) = entry.value else { continue }
            if folded.contains(entry.dot) {
                copies[place.after, default: []].append((index, place))
            } else if highest[place.after].map({ $0.lexicographicallyPrecedes(place.key) }) ?? true {
                highest[place.after] = place.key
            }
        }
        for (after, group) in copies {
            let ordered = group.sorted { lhs, rhs in
                lhs.place.key == rhs.place.key
                    ? lhs.index < rhs.index : lhs.place.key.lexicographicallyPrecedes(rhs.place.key)
            }
            // Only a gap already past the key cap keeps the guest's keys as they were.
            guard
                let keys = FractionalKey.spread(
                    ordered.count, between: highest[after], and: nil,
                    suffix: FractionalKey.suffix(for: replica, after: after))
            else { continue }
            for (copy, key) in zip(ordered, keys) {
                var place = copy.place
                place.key = key
                storage[copy.index].value = .place(place)
            }
        }
    }
}
