/// The byte before every value in the document format. Raw values are the stored bytes.
enum ValueTag: UInt8 {
    /// A tombstone: the value is gone, stamp, origin and dot stay.
    case removed = 0
    /// A value in its first form.
    case present = 1
    /// A value in a form only document format 2 has (a place, a clear's badge totals, a badge
    /// reset's sequences).
    case secondForm = 2
}

/// The byte that says what a selection value holds. Raw values are the stored bytes.
enum SelectionCode: UInt8 {
    /// No tab is selected.
    case noTab = 0
    case more = 1
    /// A tab id follows.
    case tab = 2
}

/// The byte that says whether a badge text value holds a text. Raw values are the stored bytes.
enum BadgeTextCode: UInt8 {
    /// No badge text.
    case noText = 0
    /// A length-prefixed UTF-8 string follows.
    case text = 1
}

/// The form of a tab's live position, as `LayoutDecoder` records it for `CompactResolver`.
enum PositionForm: UInt8 {
    /// No live position: the tab stands in its slot.
    case unmoved = 0
    /// A key of the first format (read by the first format's rule).
    case firstFormat = 1
    /// A ``TabPlace``.
    case place = 2
}

/// The refusals the full decoder (`ByteReader.entry()`, `TabBarDocument(decoding:)`) and its fast
/// twin (`LayoutDecoder`) share word for word: the differential test holds them to the same
/// refusal, so each is spelled once here.
enum DocumentRefusal {
    static func unknownFormat(_ format: UInt8) -> String { "unknown document format \(format)" }
    static let formatTwoNotNeeded = "format 2 for a document that needs only format 1"
    static let entryCount = "entry count"
    static let trailingBytes = "trailing bytes"
    static let removedWithoutClear = "removed entry without a clear"
    static let notInCanonicalOrder = "entries not in canonical order"
    static let tooManyOfOneKind = "too many entries of one kind"
    static func unknownKind(_ code: UInt8) -> String { "unknown entry kind \(code)" }
    static let dotSequenceZero = "dot sequence 0"
    static func unknownValueTag(_ tag: UInt8) -> String { "unknown value tag \(tag)" }
    static let clearRemoved = "a clear cannot be removed"
    static let noSecondForm = "value tag 2 on an entry that has no second form"
    static func flagNotBoolean(_ flag: UInt8) -> String { "flag \(flag) is not 0 or 1" }
    static let unknownSelection = "unknown selection kind"
    static let unknownBadgeText = "unknown badge text kind"
    static let badgeText = "badge text"
    static let tabID = "tab id"
    static func notUTF8(_ what: String) -> String { "\(what) is not valid UTF-8" }
    static func breaksIdentifierRule(_ what: String, _ problem: String) -> String { "\(what) \(problem)" }
    static let positionKey = "position key"
    static let badPositionKey = "position key must be nonempty and not end in 0x00"
    static let invalidPositionKey = "invalid position key"
    static let optionalTabMarker = "expected 0 or 1 before an optional tab id"
    static let badgeCountOutOfRange = "badge count out of range"
    static let badgeTotalOutOfRange = "badge total out of range"
    static let badgeResetReplicaCount = "badge reset replica count"
    static let badgeResetReplicasNotInOrder = "badge reset replicas not in order"
    static let badgeResetWithoutTotals = "a badge reset in format 2 must list its totals"
    static let badgeResetSequenceZero = "badge reset with sequence 0"
    static let contextReplicaCount = "context replica count"
    static let contextReplicasNotInOrder = "context replicas not in order"
    static let badgeTotalCount = "clear's badge total count"
    static let badgeTotalsNotInOrder = "clear's badge totals not in order"
    static let badgeTotalsEmpty = "a clear's badge totals in format 2 must not be empty"
    static let badgeTotalSequenceZero = "badge total with sequence 0"
}
