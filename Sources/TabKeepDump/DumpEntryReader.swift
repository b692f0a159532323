import TabKeep

/// Reads one entry object of a document line back into an ``Entry``.
enum DumpEntryReader {
    static func entry(_ value: DumpJSONValue, context: String, line: Int) throws(DumpError) -> Entry {
        let fields = try DumpFields(
            value, context: context, line: line,
            allowed: ["kind", "tab", "replica", "value", "removed", "stamp", "origin", "dot"])
        let kind = try fields.string("kind")
        let key: Entry.Key
        switch kind {
        case "position": key = .position(try fields.tab("tab"))
        case "customizable": key = .customizable(try fields.tab("tab"))
        case "hidden": key = .hidden(try fields.tab("tab"))
        case "selection": key = .selection
        case "badgeText": key = .badgeText(try fields.tab("tab"))
        case "badgeReset": key = .badgeReset(try fields.tab("tab"))
        case "badgeIncrements":
            key = .badgeIncrements(
                try fields.tab("tab"), try fields.replica(text: try fields.string("replica")))
        case "cleared": key = .cleared
        default: throw fields.error("unknown entry kind \"\(kind)\"")
        }
        if key.tab == nil && fields.members["tab"] != nil {
            throw fields.error("a \(kind) entry has no \"tab\"")
        }
        let entryValue: Entry.Value
        if fields.members["removed"] != nil {
            guard try fields.bool("removed"), fields.members["value"] == nil else {
                throw fields.error("\"removed\" must be true and comes without \"value\"")
            }
            entryValue = .removed
        } else {
            entryValue = try self.value(of: key, try fields.value("value"), fields: fields)
        }
        let origin = try fields.replica(text: try fields.string("origin"))
        let dotText = try fields.string("dot")
        let dot = try Self.dot(dotText, fields: fields)
        return Entry(
            key: key, value: entryValue, stamp: Stamp(rawValue: try fields.unsigned("stamp")), origin: origin,
            dot: dot)
    }

    /// Parses "REPLICA:SEQUENCE". ASCII text (every dump this tool writes) is cut at its one
    /// colon without the generic `split`, which allocated an array of substrings per entry.
    private static func dot(_ text: String, fields: DumpFields) throws(DumpError) -> Dot {
        let utf8 = text.utf8
        guard !utf8.contains(where: { $0 >= 0x80 }) else {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let sequence = UInt64(parts[1]), sequence > 0 else {
                throw fields.error("\"dot\" must be REPLICA:SEQUENCE, not \"\(text)\"")
            }
            return Dot(replica: try fields.replica(text: String(parts[0])), sequence: sequence)
        }
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")),
            !utf8[utf8.index(after: colon)...].contains(UInt8(ascii: ":")),
            let sequence = UInt64(Substring(utf8[utf8.index(after: colon)...])), sequence > 0
        else {
            throw fields.error("\"dot\" must be REPLICA:SEQUENCE, not \"\(text)\"")
        }
        return Dot(replica: try fields.replica(text: String(Substring(utf8[..<colon]))), sequence: sequence)
    }

    private static func value(of key: Entry.Key, _ value: DumpJSONValue, fields: DumpFields) throws(DumpError)
        -> Entry.Value
    {
        switch (key, value) {
        case (.position, .string(let hex)):
            return .position(try hexKey(hex, fields: fields))
        case (.position, .object):
            let place = try DumpFields(
                value, context: fields.context + " value", line: fields.line,
                allowed: ["after", "next", "key"])
            func optionalTab(_ name: String) throws(DumpError) -> TabID? {
                let member = try place.value(name)
                if case .null = member { return nil }
                return try place.tab(name)
            }
            return .place(
                TabPlace(
                    after: try optionalTab("after"), next: try optionalTab("next"),
                    key: try hexKey(try place.string("key"), fields: place)))
        case (.customizable, .bool(let flag)), (.hidden, .bool(let flag)):
            return .flag(flag)
        case (.selection, .string("more")): return .selection(.more)
        case (.selection, .string("none")): return .selection(.none)
        case (.selection, .object):
            let selection = try DumpFields(
                value, context: fields.context + " value", line: fields.line, allowed: ["tab"])
            return .selection(.tab(try selection.tab("tab")))
        case (.badgeText, .string(let text)): return .text(text)
        case (.badgeText, .null): return .text(nil)
        case (.badgeReset, .object):
            let reset = try DumpFields(
                value, context: fields.context + " value", line: fields.line,
                allowed: ["count", "seen", "sequences"])
            let count = try DumpFields.signed(try reset.value("count"), name: "count", fields: reset)
            var sequences: [ReplicaID: UInt64] = [:]
            if let listed = reset.members["sequences"] {
                sequences = try vector(listed, fields: reset, signed: false).mapValues {
                    UInt64(bitPattern: $0)
                }
            }
            return .badgeReset(
                count: count, seen: try vector(try reset.value("seen"), fields: reset, signed: true),
                sequences: sequences)
        case (.badgeIncrements, .integer):
            return .badgeTotal(try DumpFields.signed(value, name: "value", fields: fields))
        case (.cleared, .object(let members)) where members["context"] != nil:
            let clear = try DumpFields(
                value, context: fields.context + " value", line: fields.line, allowed: ["context", "badges"])
            let seen = try vector(try clear.value("context"), fields: clear, signed: false)
            guard case .array(let items) = try clear.value("badges"), !items.isEmpty else {
                throw clear.error("\"badges\" must be a nonempty array")
            }
            var marks: [BadgeMark] = []
            for (index, item) in items.enumerated() {
                let mark = try DumpFields(
                    item, context: clear.context + " badge \(index)", line: fields.line,
                    allowed: ["tab", "replica", "total", "sequence"])
                marks.append(
                    BadgeMark(
                        tab: try mark.tab("tab"), replica: try mark.replica(text: try mark.string("replica")),
                        total: try DumpFields.signed(try mark.value("total"), name: "total", fields: mark),
                        sequence: try mark.unsigned("sequence")))
            }
            return .context(VersionVector(seen.mapValues { UInt64(bitPattern: $0) }), badges: marks)
        case (.cleared, .object):
            let seen = try vector(value, fields: fields, signed: false)
            return .context(VersionVector(seen.mapValues { UInt64(bitPattern: $0) }), badges: [])
        default:
            throw fields.error(
                "\"value\" (\(value.kind)) does not fit a \(DumpEntryKind.name(of: key)) entry")
        }
    }

    private static func hexKey(_ hex: String, fields: DumpFields) throws(DumpError) -> [UInt8] {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0, !digits.isEmpty else {
            throw fields.error("invalid position key \"\(hex)\"")
        }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = DumpJSONParser.hexValue(digits[index]),
                let low = DumpJSONParser.hexValue(digits[index + 1])
            else { throw fields.error("invalid position key \"\(hex)\"") }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func vector(_ value: DumpJSONValue, fields: DumpFields, signed: Bool) throws(DumpError)
        -> [ReplicaID: Int64]
    {
        guard case .object(let members) = value else { throw fields.error("expected an object of replicas") }
        var result: [ReplicaID: Int64] = [:]
        for (name, number) in members {
            let replica = try fields.replica(text: name)
            if signed {
                result[replica] = try DumpFields.signed(number, name: name, fields: fields)
            } else {
                result[replica] = Int64(
                    bitPattern: try DumpFields.unsigned(number, name: name, fields: fields))
            }
        }
        return result
    }
}
