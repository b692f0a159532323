extension Entry {
    /// The largest absolute badge count or per-replica total: far beyond any badge, and sums of many of
    /// them cannot overflow 64 bits.
    static let maxBadge: Int64 = 1 << 40
    /// The longest badge text, in UTF-8 bytes.
    static let maxBadgeTextBytes = 64
    /// The most replicas a badge reset or a clear context lists.
    static let maxReplicas = 4096
    /// The most badge totals a clear lists (one per badge increments entry a document can hold).
    static let maxBadgeMarks = 8192

    /// What is wrong with one entry on its own, or nil.
    /// The decoder checks ids as it reads them, so it passes `checkingIdentifiers: false`.
    static func problem(of entry: Entry, checkingIdentifiers: Bool = true) -> String? {
        if entry.dot.sequence == 0 { return DocumentRefusal.dotSequenceZero }
        if checkingIdentifiers, let tab = entry.key.tab,
            IdentifierRules.problem(tab.rawValue, maxBytes: TabID.maxBytes) != nil
        {
            return "invalid tab id"
        }
        switch (entry.key, entry.value) {
        case (.cleared, .context(let vector, let badges)):
            if vector.count > maxReplicas { return "context lists too many replicas" }
            if badges.count > maxBadgeMarks { return "clear lists too many badge totals" }
            for (index, mark) in badges.enumerated() {
                if index > 0 && !(badges[index - 1] < mark) { return DocumentRefusal.badgeTotalsNotInOrder }
                if mark.total.magnitude > UInt64(maxBadge) { return DocumentRefusal.badgeTotalOutOfRange }
                if mark.sequence == 0 { return DocumentRefusal.badgeTotalSequenceZero }
                if checkingIdentifiers,
                    IdentifierRules.problem(mark.tab.rawValue, maxBytes: TabID.maxBytes) != nil
                {
                    return "invalid tab id in the clear's badge totals"
                }
            }
            return nil
        case (.cleared, _): return "a clear holds a context"
        case (_, .removed): return nil
        case (.position, .position(let key)):
            return FractionalKey.isValidFirstFormat(key) ? nil : DocumentRefusal.invalidPositionKey
        case (.position, .place(let place)):
            if !FractionalKey.isValid(place.key) { return DocumentRefusal.invalidPositionKey }
            if checkingIdentifiers {
                for tab in [place.after, place.next].compactMap({ $0 })
                where IdentifierRules.problem(tab.rawValue, maxBytes: TabID.maxBytes) != nil {
                    return "invalid tab id in a position"
                }
            }
            return nil
        case (.customizable, .flag), (.hidden, .flag): return nil
        case (.selection, .selection(let selection)):
            if checkingIdentifiers, case .tab(let tab) = selection,
                IdentifierRules.problem(tab.rawValue, maxBytes: TabID.maxBytes) != nil
            {
                return "invalid selected tab id"
            }
            return nil
        case (.badgeText, .text(let text)):
            return (text?.utf8.count ?? 0) > maxBadgeTextBytes ? "badge text too long" : nil
        case (.badgeReset, .badgeReset(let count, let seen, let sequences)):
            if !sequences.isEmpty && Set(sequences.keys) != Set(seen.keys) {
                return "badge reset's sequences do not match its totals"
            }
            if sequences.values.contains(0) { return DocumentRefusal.badgeResetSequenceZero }
            if count < 0 || count > maxBadge { return DocumentRefusal.badgeCountOutOfRange }
            if seen.count > maxReplicas { return "badge reset lists too many replicas" }
            if seen.values.contains(where: { $0.magnitude > UInt64(maxBadge) }) {
                return DocumentRefusal.badgeTotalOutOfRange
            }
            return nil
        case (.badgeIncrements, .badgeTotal(let total)):
            return total.magnitude > UInt64(maxBadge) ? DocumentRefusal.badgeTotalOutOfRange : nil
        default:
            return "value does not match the key"
        }
    }
}

extension IdentifierRules {
    /// The rule `value` breaks, or nil.
    static func problem(_ value: String, maxBytes: Int) -> String? {
        var contiguous = value
        contiguous.makeContiguousUTF8()
        return contiguous.utf8.withContiguousStorageIfAvailable { problem(in: $0, maxBytes: maxBytes) } ?? nil
    }
}
