public import TabKeep

/// The first line of a dump: what it is and where it came from.
///
/// ```swift
/// let reader = try DumpReader(path: "store.tkdump")
/// print(reader.header.replica, reader.header.time)
/// ```
public struct DumpHeader: Hashable, Sendable {
    /// The format name every dump starts with.
    public static let formatName = "tabkeep-dump"
    /// The format version this build writes. Version 2 added moved tabs' places (`{"after", "next",
    /// "key"}`) and a clear's badge totals; version 3 writes each entry as a positional array and
    /// no layout; this build reads versions 1, 2 and 3.
    public static let formatVersion = 3
    /// The oldest format version this build reads.
    public static let oldestReadableVersion = 1

    /// The store schema the dump was taken from.
    public var schema: Int
    /// The replica id of the dumped store (a restored store keeps its own).
    public var replica: ReplicaID
    /// When the dump was taken, as ISO 8601 UTC with milliseconds.
    public var time: String

    /// A header.
    public init(schema: Int, replica: ReplicaID, time: String) {
        self.schema = schema
        self.replica = replica
        self.time = time
    }

    /// `milliseconds` since 1970 as `YYYY-MM-DDTHH:MM:SS.mmmZ` (proleptic Gregorian, UTC).
    public static func isoTime(milliseconds: UInt64) -> String {
        let seconds = Int64(milliseconds / 1000)
        let days = seconds / 86_400
        let secondOfDay = seconds % 86_400
        // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(Int64(milliseconds % 1000), 3))Z"
    }
}

/// One record of a dump after the header.
public enum DumpRecord: Hashable, Sendable {
    /// A registered catalog.
    case catalog(bar: BarID, catalog: Catalog)
    /// A stored document, with every entry.
    case document(key: DocumentKey, document: TabBarDocument)
}

/// The names of entry kinds in a dump line.
enum DumpEntryKind {
    static func name(of key: Entry.Key) -> StaticString {
        switch key {
        case .position: "position"
        case .customizable: "customizable"
        case .hidden: "hidden"
        case .selection: "selection"
        case .badgeText: "badgeText"
        case .badgeReset: "badgeReset"
        case .badgeIncrements: "badgeIncrements"
        case .cleared: "cleared"
        }
    }
}
