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
        if entry.dot.sequence == 0 { return "dot sequence 0" }
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
                if index > 0 && !(badges[index - 1] < mark) { return "clear's badge totals not in order" }
                if mark.total.magnitude > UInt64(maxBadge) { return "badge total out of range" }
                if mark.sequence == 0 { return "badge total with sequence 0" }
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
            return FractionalKey.isValidLegacy(key) ? nil : "invalid position key"
        case (.position, .place(let place)):
            if !FractionalKey.isValid(place.key) { return "invalid position key" }
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
            if sequences.values.contains(0) { return "badge reset with sequence 0" }
            if count < 0 || count > maxBadge { return "badge count out of range" }
            if seen.count > maxReplicas { return "badge reset lists too many replicas" }
            if seen.values.contains(where: { $0.magnitude > UInt64(maxBadge) }) {
                return "badge total out of range"
            }
            return nil
        case (.badgeIncrements, .badgeTotal(let total)):
            return total.magnitude > UInt64(maxBadge) ? "badge total out of range" : nil
        default:
            return "value does not match the key"
        }
    }
}

extension Entry.Key {
    /// The byte that stands for the kind of key; also its rank in the canonical order.
    var code: UInt8 {
        switch self {
        case .position: 0
        case .customizable: 1
        case .hidden: 2
        case .selection: 3
        case .badgeText: 4
        case .badgeReset: 5
        case .badgeIncrements: 6
        case .cleared: 7
        }
    }

    /// The tab the key is about, if any.
    package var tab: TabID? {
        switch self {
        case .position(let tab), .customizable(let tab), .hidden(let tab), .badgeText(let tab),
            .badgeReset(let tab), .badgeIncrements(let tab, _):
            tab
        case .selection, .cleared: nil
        }
    }

    /// The same key about another tab.
    func with(tab: TabID) -> Entry.Key {
        switch self {
        case .position: .position(tab)
        case .customizable: .customizable(tab)
        case .hidden: .hidden(tab)
        case .badgeText: .badgeText(tab)
        case .badgeReset: .badgeReset(tab)
        case .badgeIncrements(_, let replica): .badgeIncrements(tab, replica)
        case .selection, .cleared: self
        }
    }

    /// The most entries of one kind a document holds.
    static func maxCount(code: UInt8) -> Int {
        switch code {
        case 3, 7: 1
        case 6: 8192
        default: 1024
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
