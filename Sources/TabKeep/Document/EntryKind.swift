/// The byte that names an entry's kind in the document format, also its rank in the canonical
/// order. The raw values are the bytes stored documents hold: never renumber a case.
enum EntryKind: UInt8, Comparable, CaseIterable {
    case position = 0
    case customizable = 1
    case hidden = 2
    case selection = 3
    case badgeText = 4
    case badgeReset = 5
    case badgeIncrements = 6
    case cleared = 7

    /// Whether a tab id follows the kind byte (every kind but the selection and the clear).
    var hasTab: Bool { self != .selection && self != .cleared }

    /// Whether the replica id follows the tab id (badge increments: one entry per tab and replica).
    var hasReplica: Bool { self == .badgeIncrements }

    /// The most entries of this kind a document holds.
    var maxCount: Int {
        switch self {
        case .selection, .cleared: 1
        case .badgeIncrements: 8192
        default: 1024
        }
    }

    static func < (lhs: EntryKind, rhs: EntryKind) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension Entry.Key {
    /// The key's kind: the byte that stands for it, and its rank in the canonical order.
    var kind: EntryKind {
        switch self {
        case .position: .position
        case .customizable: .customizable
        case .hidden: .hidden
        case .selection: .selection
        case .badgeText: .badgeText
        case .badgeReset: .badgeReset
        case .badgeIncrements: .badgeIncrements
        case .cleared: .cleared
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
}
