import TabKeep

/// The fast path of restoring a version 3 document line: its bytes written straight into the
/// bytes a store keeps (`TabBarDocument.encoded()`), with the document's dots and newest stamp,
/// without building entries, strings or dictionaries — the reverse of ``DumpTranscoder``.
///
/// It takes the lines `DumpDocumentLineScanner` takes (the writer's exact form) whose entries come
/// in canonical order, vectors by replica; for each it returns exactly what the slow twin —
/// the scanner's entries made a document by `TabBarDocument(entries:)`, then encoded — gives,
/// checking what that document's validation checks: the order, the caps, every value, the
/// tombstones against the clear's context, each dot held once. Anything else returns nil and
/// the line goes to the slow path, which takes or refuses it and names the problem.
/// `DumpLineTranscoderPropertyTests` compares the two on valid and mutated lines.
struct DumpLineTranscoder: ~Copyable {
    /// The entries written so far (the stored bytes but the format byte and count).
    private var body = ByteWriter()
    /// The dots of the entries read so far, and whether each is a tombstone (checked against the
    /// clear's context at the end: the clear comes last). Kept between lines.
    private var dots: [(dot: Dot, removed: Bool)] = []
    /// The clear's context, as read.
    private var context: [(replica: UInt64, sequence: UInt64)] = []
    /// A badge reset's totals and sequences, as read.
    private var seen: [(replica: UInt64, total: Int64)] = []
    private var sequences: [(replica: UInt64, sequence: UInt64)] = []

    init() {}

    /// The document `line` holds, in a store's bytes; nil when the slow path must read the line.
    mutating func document(_ line: UnsafeBufferPointer<UInt8>) -> (
        key: DocumentKey, encoded: EncodedDocument
    )? {
        var cursor = DumpLineCursor(line)
        body.removeAll()
        body.reserveCapacity(line.count)
        dots.removeAll(keepingCapacity: true)
        context.removeAll(keepingCapacity: true)
        guard cursor.literal(#"{"type":"document","profile":""#),
            let profile = cursor.identifier(maxBytes: ProfileID.maxBytes), cursor.literal(#","bar":""#),
            let bar = cursor.identifier(maxBytes: BarID.maxBytes), cursor.literal(#","entries":["#)
        else { return nil }
        var count = 0
        var secondForm = false
        var newest = Stamp.zero
        var previous: (kind: UInt8, tab: UnsafeBufferPointer<UInt8>?, replica: UInt64)?
        var kindCount = 0
        var sawClear = false
        if !cursor.literal("]") {
            repeat {
                guard count < Self.maxEntries,
                    let entry = self.entry(&cursor, after: previous, kindCount: &kindCount)
                else { return nil }
                previous = (entry.kind, entry.tab, entry.replica)
                secondForm = secondForm || entry.secondForm
                newest = max(newest, entry.stamp)
                sawClear = sawClear || entry.kind == Self.clearKind
                count += 1
            } while cursor.literal(",")
            guard cursor.literal("]") else { return nil }
        }
        guard cursor.literal("}"), cursor.isAtEnd else { return nil }
        // Tombstones exactly where the clear's context covers (the canonical form).
        if sawClear {
            for entry in dots.dropLast() where covered(entry.dot) != entry.removed { return nil }
        } else if dots.contains(where: \.removed) {
            return nil
        }
        var sorted = dots.map(\.dot)
        sorted.sort()
        for index in sorted.indices.dropFirst() where sorted[index - 1] == sorted[index] { return nil }
        // The format byte and the entry count (a varint of at most three bytes: 16,384 entries at
        // most), then the entries, in one array of the exact size.
        let countBytes = count < 0x80 ? 1 : count < 0x4000 ? 2 : 3
        let bytes = body.withWritten { entries in
            [UInt8](unsafeUninitializedCapacity: 1 + countBytes + entries.count) { buffer, initialized in
                buffer[0] = secondForm ? 2 : 1
                var rest = count
                for index in 1...countBytes {
                    buffer[index] = UInt8(truncatingIfNeeded: rest) | (index < countBytes ? 0x80 : 0)
                    rest >>= 7
                }
                if let base = entries.baseAddress, entries.count > 0 {
                    (buffer.baseAddress! + 1 + countBytes).initialize(from: base, count: entries.count)
                }
                initialized = 1 + countBytes + entries.count
            }
        }
        let key = DocumentKey(profile: ProfileID(unchecked: profile), bar: BarID(unchecked: bar))
        return (key, EncodedDocument(bytes: bytes, dots: sorted, maxStamp: newest))
    }

    /// What one entry was, for the checks that span entries.
    private struct Read {
        var kind: UInt8
        var tab: UnsafeBufferPointer<UInt8>?
        var replica: UInt64
        var stamp: Stamp
        var secondForm: Bool
    }

    /// The kind bytes (`EntryKind`).
    private static let selectionKind: UInt8 = 3
    private static let incrementsKind: UInt8 = 6
    private static let clearKind: UInt8 = 7
    /// The caps of `TabBarDocument` and `Entry` (the binary decoder's and the validation's).
    private static let maxEntries = 16_384
    private static let maxBadge: UInt64 = 1 << 40
    private static let maxBadgeText = 64
    private static let maxReplicas = 4096
    private static let maxBadgeMarks = 8192

    /// `[K,(T,)(R,)S,R,"R:SEQ"(,V)]`, written to `body`; nil when out of canonical order after
    /// `previous`, past its kind's cap, or not a form this path takes.
    private mutating func entry(
        _ cursor: inout DumpLineCursor,
        after previous: (kind: UInt8, tab: UnsafeBufferPointer<UInt8>?, replica: UInt64)?,
        kindCount: inout Int
    ) -> Read? {
        guard cursor.literal("[\""), let kind = cursor.kindByte() else { return nil }
        var tab: UnsafeBufferPointer<UInt8>?
        var replica: UInt64 = 0
        if kind != Self.selectionKind && kind != Self.clearKind {
            guard cursor.literal(",\""), let read = cursor.identifierBytes(maxBytes: TabID.maxBytes) else {
                return nil
            }
            tab = read
            if kind == Self.incrementsKind {
                guard cursor.literal(",\""), let read = cursor.replica() else { return nil }
                replica = read.rawValue
            }
        }
        // Strictly after the entry before, in the canonical order: kind, tab, replica.
        if let previous {
            guard previous.kind <= kind else { return nil }
            if previous.kind == kind {
                // A second selection or clear has no tab.
                guard let tab, let previousTab = previous.tab else { return nil }
                let order = DumpTranscoder.compare(previousTab, tab)
                guard order < 0 || (order == 0 && previous.replica < replica) else { return nil }
                kindCount += 1
            } else {
                kindCount = 1
            }
        } else {
            kindCount = 1
        }
        guard kindCount <= (kind == Self.incrementsKind ? 8192 : 1024) else { return nil }
        guard cursor.literal(","), let stamp = cursor.unsigned(), cursor.literal(",\""),
            let origin = cursor.replica(), cursor.literal(",\""), let dot = cursor.dot()
        else { return nil }
        body.byte(kind)
        if let tab { Self.string(tab, &body) }
        if kind == Self.incrementsKind { body.fixed64(replica) }
        body.varint(stamp)
        body.fixed64(origin.rawValue)
        body.fixed64(dot.replica.rawValue)
        body.varint(dot.sequence)
        var secondForm = false
        if cursor.literal("]") {
            guard kind != Self.clearKind else { return nil }  // a clear holds a context
            body.byte(0)
            dots.append((dot, true))
        } else {
            guard cursor.literal(","), let form = value(kind, &cursor), cursor.literal("]") else {
                return nil
            }
            secondForm = form
            dots.append((dot, false))
        }
        return Read(
            kind: kind, tab: tab, replica: replica, stamp: Stamp(rawValue: stamp), secondForm: secondForm)
    }

    /// The value of an entry of `kind`, its tag byte first, written to `body`: whether it took the
    /// second form (document format 2); nil when not a value this path takes.
    private mutating func value(_ kind: UInt8, _ cursor: inout DumpLineCursor) -> Bool? {
        switch kind {
        case 0:
            guard cursor.literal(#"{"after":"#) else { return nil }
            body.byte(2)
            guard Self.optionalTab(&cursor, &body), cursor.literal(#","next":"#),
                Self.optionalTab(&cursor, &body), cursor.literal(#","key":""#),
                let digits = cursor.stringBytes(),
                Self.hexKey(digits, &body), cursor.literal("}")
            else { return nil }
            return true
        case 1, 2:
            body.byte(1)
            if cursor.literal("true") {
                body.byte(1)
            } else if cursor.literal("false") {
                body.byte(0)
            } else {
                return nil
            }
            return false
        case 3:
            body.byte(1)
            if cursor.literal(#""more""#) {
                body.byte(1)
            } else if cursor.literal(#""none""#) {
                body.byte(0)
            } else {
                guard cursor.literal(#"{"tab":""#),
                    let tab = cursor.identifierBytes(maxBytes: TabID.maxBytes),
                    cursor.literal("}")
                else { return nil }
                body.byte(2)
                Self.string(tab, &body)
            }
            return false
        case 4:
            body.byte(1)
            if cursor.literal("null") {
                body.byte(0)
                return false
            }
            guard cursor.literal("\""), let text = cursor.stringBytes(), text.count <= Self.maxBadgeText,
                DumpTranscoder.Reader.isUTF8(text)
            else { return nil }
            body.byte(1)
            Self.string(text, &body)
            return false
        case 5:
            return badgeReset(&cursor)
        case 6:
            guard let total = cursor.signed(), total.magnitude <= Self.maxBadge else { return nil }
            body.byte(1)
            body.signed(total)
            return false
        default:
            return clear(&cursor)
        }
    }

    /// `{"count":N,"seen":{…}(,"sequences":{…})}`, the two lists over the same replicas.
    private mutating func badgeReset(_ cursor: inout DumpLineCursor) -> Bool? {
        guard cursor.literal(#"{"count":"#), let count = cursor.signed(), count >= 0,
            UInt64(count) <= Self.maxBadge, cursor.literal(#","seen":"#)
        else { return nil }
        seen.removeAll(keepingCapacity: true)
        sequences.removeAll(keepingCapacity: true)
        guard
            Self.vector(
                &cursor, max: Self.maxReplicas,
                { replica, cursor in
                    guard let total = cursor.signed(), total.magnitude <= Self.maxBadge else { return false }
                    seen.append((replica, total))
                    return true
                })
        else { return nil }
        if cursor.literal(#","sequences":"#) {
            guard
                Self.vector(
                    &cursor, max: Self.maxReplicas,
                    { replica, cursor in
                        guard let sequence = cursor.unsigned(), sequence > 0 else { return false }
                        sequences.append((replica, sequence))
                        return true
                    })
            else { return nil }
        }
        guard cursor.literal("}") else { return nil }
        let sequenced = !sequences.isEmpty
        if sequenced {
            guard sequences.count == seen.count else { return nil }
            for index in seen.indices where seen[index].replica != sequences[index].replica { return nil }
        }
        body.byte(sequenced ? 2 : 1)
        body.signed(count)
        body.varint(UInt64(seen.count))
        for index in seen.indices {
            body.fixed64(seen[index].replica)
            body.signed(seen[index].total)
            if sequenced { body.varint(sequences[index].sequence) }
        }
        return sequenced
    }

    /// A clear's context, `{…}`, or `{"context":{…},"badges":[…]}` with the badge totals it had seen.
    private mutating func clear(_ cursor: inout DumpLineCursor) -> Bool? {
        let marked = cursor.literal(#"{"context":"#)
        guard
            Self.vector(
                &cursor, max: Self.maxReplicas,
                { replica, cursor in
                    // A zero is dropped by the slow path's vector: left to it.
                    guard let sequence = cursor.unsigned(), sequence > 0 else { return false }
                    context.append((replica, sequence))
                    return true
                })
        else { return nil }
        body.byte(marked ? 2 : 1)
        body.varint(UInt64(context.count))
        for element in context {
            body.fixed64(element.replica)
            body.varint(element.sequence)
        }
        guard marked else { return false }
        guard cursor.literal(#","badges":["#) else { return nil }
        // The count comes first in the stored bytes: the marks go to a writer of their own.
        var marks = ByteWriter()
        var count = 0
        var previous: (tab: UnsafeBufferPointer<UInt8>, replica: UInt64)?
        repeat {
            guard count < Self.maxBadgeMarks, cursor.literal(#"{"tab":""#),
                let tab = cursor.identifierBytes(maxBytes: TabID.maxBytes), cursor.literal(#","replica":""#),
                let replica = cursor.replica()?.rawValue, cursor.literal(#","total":"#),
                let total = cursor.signed(), total.magnitude <= Self.maxBadge,
                cursor.literal(#","sequence":"#),
                let sequence = cursor.unsigned(), sequence > 0, cursor.literal("}")
            else { return nil }
            if let previous {
                let order = DumpTranscoder.compare(previous.tab, tab)
                guard order < 0 || (order == 0 && previous.replica < replica) else { return nil }
            }
            previous = (tab, replica)
            Self.string(tab, &marks)
            marks.fixed64(replica)
            marks.signed(total)
            marks.varint(sequence)
            count += 1
        } while cursor.literal(",")
        guard cursor.literal("]}") else { return nil }
        body.varint(UInt64(count))
        marks.withWritten { body.raw(UnsafeRawBufferPointer($0)) }
        return true
    }

    /// An object of replicas in increasing order, `{"REPLICA":…,…}`, each value read by `element`
    /// (false: not taken); false for a repeated or out-of-order replica or more than `max`.
    private static func vector(
        _ cursor: inout DumpLineCursor, max limit: Int,
        _ element: (UInt64, inout DumpLineCursor) -> Bool
    ) -> Bool {
        guard cursor.literal("{") else { return false }
        if cursor.literal("}") { return true }
        var previous: UInt64?
        var count = 0
        repeat {
            guard count < limit, cursor.literal("\""), let replica = cursor.replica()?.rawValue,
                previous.map({ $0 < replica }) ?? true, cursor.literal(":"), element(replica, &cursor)
            else { return false }
            previous = replica
            count += 1
        } while cursor.literal(",")
        return cursor.literal("}")
    }

    /// `null` or a tab id in quotes, written as the stored optional tab; false when neither.
    private static func optionalTab(_ cursor: inout DumpLineCursor, _ out: inout ByteWriter) -> Bool {
        if cursor.literal("null") {
            out.byte(0)
            return true
        }
        guard cursor.literal("\""), let tab = cursor.identifierBytes(maxBytes: TabID.maxBytes) else {
            return false
        }
        out.byte(1)
        string(tab, &out)
        return true
    }

    /// A place's key from its hex digits (an even, nonempty run), length first: a valid key
    /// (at most `TabPlace.maxKeyLength` bytes, the last nonzero), else false.
    private static func hexKey(_ digits: UnsafeBufferPointer<UInt8>, _ out: inout ByteWriter) -> Bool {
        let length = digits.count / 2
        guard digits.count % 2 == 0, length > 0, length <= TabPlace.maxKeyLength else { return false }
        out.varint(UInt64(length))
        var last: UInt8 = 0
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = DumpJSONParser.hexValue(digits[index]),
                let low = DumpJSONParser.hexValue(digits[index + 1])
            else { return false }
            last = high << 4 | low
            out.byte(last)
        }
        return last != 0
    }

    /// Length-prefixed bytes.
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ out: inout ByteWriter) {
        out.varint(UInt64(bytes.count))
        out.raw(UnsafeRawBufferPointer(bytes))
    }

    /// Whether the clear's context covers `dot`.
    private func covered(_ dot: Dot) -> Bool {
        let replica = dot.replica.rawValue
        var low = 0
        var high = context.count
        while low < high {
            let middle = (low + high) / 2
            if context[middle].replica < replica { low = middle + 1 } else { high = middle }
        }
        return low < context.count && context[low].replica == replica && dot.sequence <= context[low].sequence
    }
}
