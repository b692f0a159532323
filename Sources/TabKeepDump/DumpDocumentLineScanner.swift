import Foundation
import TabKeep

/// The fast path of reading a version 3 document line: the line's bytes scanned straight into
/// entries, without a JSON token list, a value tree or a ``DumpFields`` per object.
///
/// It takes only a line exactly as ``DumpWriter`` writes one — members in the writer's order, no
/// whitespace, no escape in any string — holding entries of the kinds and value forms a store
/// writes (position places, flags, selections, badge texts, resets and totals, clears,
/// tombstones). Anything else (a first-format position key, an escape, another
/// spacing, a number out of range, an invalid id) returns nil, and the caller reads the line on
/// the slow path (`DumpJSONLine` and ``DumpEntryReader``), which accepts or refuses it and names
/// the problem. The entries it returns are the ones the slow path builds for the same line, and
/// they are validated the same way (`TabBarDocument(entries:)`);
/// `DumpLineScannerDifferentialPropertyTests` compares the two paths on valid and mutated lines.
struct DumpDocumentLineScanner {
    private var cursor: DumpLineCursor

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        cursor = DumpLineCursor(bytes)
    }

    /// The document `line` holds, or nil when the slow path must read it.
    static func document(_ line: UnsafeBufferPointer<UInt8>) -> (key: DocumentKey, entries: [Entry])? {
        var scanner = DumpDocumentLineScanner(line)
        return scanner.document()
    }

    private mutating func document() -> (key: DocumentKey, entries: [Entry])? {
        guard literal(#"{"type":"document","profile":""#),
            let profile = identifier(maxBytes: ProfileID.maxBytes), literal(#","bar":""#),
            let bar = identifier(maxBytes: BarID.maxBytes), literal(#","entries":["#)
        else { return nil }
        var entries: [Entry] = []
        if !literal("]") {
            repeat {
                guard let entry = entry() else { return nil }
                entries.append(entry)
            } while literal(",")
            guard literal("]") else { return nil }
        }
        guard literal("}"), cursor.isAtEnd else { return nil }
        return (DocumentKey(profile: ProfileID(unchecked: profile), bar: BarID(unchecked: bar)), entries)
    }

    // MARK: Entries

    /// `[K,(T,)(R,)S,R,"R:SEQ"(,V)]` for the kinds this path takes.
    private mutating func entry() -> Entry? {
        guard literal("[\""), let kind = kindName() else { return nil }
        let key: Entry.Key
        switch kind {
        case .selection:
            key = .selection
        case .cleared:
            key = .cleared
        case .badgeIncrements:
            guard literal(",\""), let tab = identifier(maxBytes: TabID.maxBytes), literal(",\""),
                let replica = replica()
            else { return nil }
            key = .badgeIncrements(TabID(unchecked: tab), replica)
        case .position, .customizable, .hidden, .badgeText, .badgeReset:
            guard literal(",\""), let tab = identifier(maxBytes: TabID.maxBytes) else { return nil }
            let id = TabID(unchecked: tab)
            switch kind {
            case .position: key = .position(id)
            case .customizable: key = .customizable(id)
            case .hidden: key = .hidden(id)
            case .badgeText: key = .badgeText(id)
            default: key = .badgeReset(id)
            }
        }
        guard literal(","), let stamp = unsigned(), literal(",\""), let origin = replica(),
            literal(",\""), let dot = dot()
        else { return nil }
        let value: Entry.Value
        if literal("]") {
            value = .removed
        } else {
            guard literal(","), let present = self.value(of: kind), literal("]") else { return nil }
            value = present
        }
        return Entry(key: key, value: value, stamp: Stamp(rawValue: stamp), origin: origin, dot: dot)
    }

    /// The entry kinds this path takes, by the byte that stands for each in the stored format.
    private enum Kind: UInt8 {
        case position, customizable, hidden, selection, badgeText, badgeReset, badgeIncrements, cleared
    }

    /// A kind's name and its closing quote.
    private mutating func kindName() -> Kind? { cursor.kindByte().flatMap(Kind.init(rawValue:)) }

    private mutating func value(of kind: Kind) -> Entry.Value? {
        switch kind {
        case .position:
            var after: TabID?
            var next: TabID?
            guard literal(#"{"after":"#), optionalTab(&after), literal(#","next":"#), optionalTab(&next),
                literal(#","key":""#), let key = hexKey(), literal("}")
            else { return nil }
            return .place(TabPlace(after: after, next: next, key: key))
        case .customizable, .hidden:
            if literal("true") { return .flag(true) }
            if literal("false") { return .flag(false) }
            return nil
        case .selection:
            if literal(#""more""#) { return .selection(.more) }
            if literal(#""none""#) { return .selection(.none) }
            guard literal(#"{"tab":""#), let tab = identifier(maxBytes: TabID.maxBytes), literal("}")
            else { return nil }
            return .selection(.tab(TabID(unchecked: tab)))
        case .badgeText:
            if literal("null") { return .text(nil) }
            guard literal("\""), let text = plainString() else { return nil }
            return .text(text)
        case .badgeIncrements:
            return signed().map { .badgeTotal($0) }
        case .badgeReset:
            guard literal(#"{"count":"#), let count = signed(), literal(#","seen":"#),
                let seen = vector(signed: true)
            else { return nil }
            var sequences: [ReplicaID: UInt64] = [:]
            if literal(#","sequences":"#) {
                guard let listed = vector(signed: false) else { return nil }
                sequences = listed.mapValues { UInt64(bitPattern: $0) }
            }
            guard literal("}") else { return nil }
            return .badgeReset(count: count, seen: seen, sequences: sequences)
        case .cleared:
            guard literal(#"{"context":"#) else {
                guard let seen = vector(signed: false) else { return nil }
                return .context(VersionVector(seen.mapValues { UInt64(bitPattern: $0) }), badges: [])
            }
            guard let seen = vector(signed: false), literal(#","badges":["#) else { return nil }
            var marks: [BadgeMark] = []
            repeat {
                guard literal(#"{"tab":""#), let tab = identifier(maxBytes: TabID.maxBytes),
                    literal(#","replica":""#), let replica = replica(), literal(#","total":"#),
                    let total = signed(), literal(#","sequence":"#), let sequence = unsigned(), literal("}")
                else { return nil }
                marks.append(
                    BadgeMark(tab: TabID(unchecked: tab), replica: replica, total: total, sequence: sequence))
            } while literal(",")
            guard literal("]}") else { return nil }
            return .context(VersionVector(seen.mapValues { UInt64(bitPattern: $0) }), badges: marks)
        }
    }

    /// An object of replicas, `{"REPLICA":N,…}`, as the slow path's vectors read it: signed
    /// numbers, or unsigned ones kept as their bit pattern; nil for a repeated replica.
    private mutating func vector(signed isSigned: Bool) -> [ReplicaID: Int64]? {
        guard literal("{") else { return nil }
        var result: [ReplicaID: Int64] = [:]
        if literal("}") { return result }
        repeat {
            guard literal("\""), let replica = replica(), literal(":") else { return nil }
            let number: Int64
            if isSigned {
                guard let value = signed() else { return nil }
                number = value
            } else {
                guard let value = unsigned() else { return nil }
                number = Int64(bitPattern: value)
            }
            guard result.updateValue(number, forKey: replica) == nil else { return nil }
        } while literal(",")
        guard literal("}") else { return nil }
        return result
    }

    /// `null` or a tab id in quotes, into `tab`; false when neither.
    private mutating func optionalTab(_ tab: inout TabID?) -> Bool {
        if literal("null") {
            tab = nil
            return true
        }
        guard literal("\""), let id = identifier(maxBytes: TabID.maxBytes) else { return false }
        tab = TabID(unchecked: id)
        return true
    }

    // MARK: Tokens (the cursor's)

    @inline(__always)
    private mutating func literal(_ text: StaticString) -> Bool { cursor.literal(text) }
    private mutating func identifier(maxBytes: Int) -> String? { cursor.identifier(maxBytes: maxBytes) }
    private mutating func plainString() -> String? { cursor.plainString() }
    private mutating func replica() -> ReplicaID? { cursor.replica() }
    private mutating func dot() -> Dot? { cursor.dot() }
    private mutating func hexKey() -> [UInt8]? { cursor.hexKey() }
    private mutating func unsigned() -> UInt64? { cursor.unsigned() }
    private mutating func signed() -> Int64? { cursor.signed() }
}
