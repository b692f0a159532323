import TabKeep

/// Reads one entry object of a document line back into an ``Entry``.
enum DumpEntryReader {
    static func entry(_ value: DumpJSONValue, context: DumpContext, line: Int) throws(DumpError) -> Entry {
        let fields = try DumpFields(
            value, context: context, line: line,
            allowed: ["kind", "tab", "replica", "value", "removed", "stamp", "origin", "dot"])
        let kindValue = try fields.value("kind")
        let key: Entry.Key
        if kindValue.isString("position") {
            key = .position(try fields.tab("tab"))
        } else if kindValue.isString("customizable") {
            key = .customizable(try fields.tab("tab"))
        } else if kindValue.isString("hidden") {
            key = .hidden(try fields.tab("tab"))
        } else if kindValue.isString("selection") {
            key = .selection
        } else if kindValue.isString("badgeText") {
            key = .badgeText(try fields.tab("tab"))
        } else if kindValue.isString("badgeReset") {
            key = .badgeReset(try fields.tab("tab"))
        } else if kindValue.isString("badgeIncrements") {
            key = .badgeIncrements(try fields.tab("tab"), try fields.replica("replica"))
        } else if kindValue.isString("cleared") {
            key = .cleared
        } else {
            throw fields.error("unknown entry kind \"\(try fields.string("kind"))\"")
        }
        if key.tab == nil && fields.member("tab") != nil {
            throw fields.error("a \(DumpEntryKind.name(of: key)) entry has no \"tab\"")
        }
        let entryValue: Entry.Value
        if fields.member("removed") != nil {
            guard try fields.bool("removed"), fields.member("value") == nil else {
                throw fields.error("\"removed\" must be true and comes without \"value\"")
            }
            entryValue = .removed
        } else {
            entryValue = try self.value(of: key, try fields.value("value"), fields: fields)
        }
        let origin = try fields.replica("origin")
        let dot = try Self.dot(try fields.value("dot"), fields: fields)
        return Entry(
            key: key, value: entryValue, stamp: Stamp(rawValue: try fields.unsigned("stamp")), origin: origin,
            dot: dot)
    }

    /// A version 3 entry: `[KIND,(TAB,)(REPLICA,)STAMP,ORIGIN,DOT(,VALUE)]`, a tombstone without
    /// the value.
    static func positionalEntry(_ value: DumpJSONValue, context: DumpContext, line: Int) throws(DumpError)
        -> Entry
    {
        let fields = DumpFields(positional: value, context: context, line: line)
        guard let items = value.elements else {
            throw fields.error("the entry is \(value.kind), not an array")
        }
        guard let kindValue = items.first, kindValue.isStringValue else {
            throw fields.error("the entry's first element, its kind, is not a string")
        }
        let key: Entry.Key
        var next = 1
        func tab() throws(DumpError) -> TabID {
            defer { next += 1 }
            guard next < items.count else { throw fields.error("a \(kindValue.string!) entry lacks its tab") }
            return try fields.tab(value: items[next], what: "the tab")
        }
        // Compared on the line's bytes (as version 2's kinds are): no String per entry.
        if kindValue.isString("position") {
            key = .position(try tab())
        } else if kindValue.isString("customizable") {
            key = .customizable(try tab())
        } else if kindValue.isString("hidden") {
            key = .hidden(try tab())
        } else if kindValue.isString("selection") {
            key = .selection
        } else if kindValue.isString("badgeText") {
            key = .badgeText(try tab())
        } else if kindValue.isString("badgeReset") {
            key = .badgeReset(try tab())
        } else if kindValue.isString("badgeIncrements") {
            let tab = try tab()
            guard next < items.count else { throw fields.error("a badgeIncrements entry lacks its replica") }
            key = .badgeIncrements(tab, try fields.replica(value: items[next], what: "the replica"))
            next += 1
        } else if kindValue.isString("cleared") {
            key = .cleared
        } else {
            throw fields.error("unknown entry kind \"\(kindValue.string!)\"")
        }
        let kind = DumpEntryKind.name(of: key)
        guard items.count == next + 3 || items.count == next + 4 else {
            throw fields.error(
                "a \(kind) entry has \(next + 3) elements, or \(next + 4) with its value, not \(items.count)")
        }
        let stamp = try DumpFields.unsigned(items[next], name: "stamp", fields: fields)
        let origin = try fields.replica(value: items[next + 1], what: "the origin")
        let dot = try Self.dot(items[next + 2], fields: fields)
        let entryValue =
            items.count == next + 4 ? try self.value(of: key, items[next + 3], fields: fields) : .removed
        return Entry(key: key, value: entryValue, stamp: Stamp(rawValue: stamp), origin: origin, dot: dot)
    }

    /// Parses "REPLICA:SEQUENCE" from the line's bytes when it is written as this tool writes it,
    /// else from its text, which names what is wrong.
    private static func dot(_ value: DumpJSONValue, fields: DumpFields) throws(DumpError) -> Dot {
        if let dot = value.line.withRawText(at: value.index, plainDot) ?? nil { return dot }
        guard let text = value.string else {
            throw fields.error("\"dot\" is \(value.kind), not a string")
        }
        return try dot(text, fields: fields)
    }

    /// 16 lowercase hex digits, a colon and a nonzero decimal sequence, or nil.
    static func plainDot(_ raw: UnsafeBufferPointer<UInt8>) -> Dot? {
        guard raw.count > 17, raw[16] == UInt8(ascii: ":"),
            let replica = DumpFields.replicaHex(UnsafeBufferPointer(rebasing: raw[..<16]))
        else { return nil }
        var sequence: UInt64 = 0
        for byte in raw[17...] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow1) = sequence.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            sequence = sum
        }
        return sequence > 0 ? Dot(replica: replica, sequence: sequence) : nil
    }

    /// Parses "REPLICA:SEQUENCE" text. ASCII text is cut at its one colon without the generic
    /// `split`, which allocated an array of substrings per entry.
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
        switch key {
        case .position:
            if let hex = value.string { return .position(try hexKey(hex, fields: fields)) }
            guard value.isObject else { break }
            let place = try DumpFields(
                value, context: fields.context.value, line: fields.line,
                allowed: ["after", "next", "key"])
            func optionalTab(_ name: StaticString) throws(DumpError) -> TabID? {
                if try place.value(name).isNull { return nil }
                return try place.tab(name)
            }
            return .place(
                TabPlace(
                    after: try optionalTab("after"), next: try optionalTab("next"),
                    key: try hexKey(try place.string("key"), fields: place)))
        case .customizable, .hidden:
            if let flag = value.bool { return .flag(flag) }
        case .selection:
            if value.isString("more") { return .selection(.more) }
            if value.isString("none") { return .selection(.none) }
            guard value.isObject else { break }
            let selection = try DumpFields(
                value, context: fields.context.value, line: fields.line, allowed: ["tab"])
            return .selection(.tab(try selection.tab("tab")))
        case .badgeText:
            if let text = value.string { return .text(text) }
            if value.isNull { return .text(nil) }
        case .badgeReset:
            guard value.isObject else { break }
            let reset = try DumpFields(
                value, context: fields.context.value, line: fields.line,
                allowed: ["count", "seen", "sequences"])
            let count = try DumpFields.signed(try reset.value("count"), name: "count", fields: reset)
            var sequences: [ReplicaID: UInt64] = [:]
            if let listed = reset.member("sequences") {
                sequences = try vector(listed, fields: reset, signed: false).mapValues {
                    UInt64(bitPattern: $0)
                }
            }
            return .badgeReset(
                count: count, seen: try vector(try reset.value("seen"), fields: reset, signed: true),
                sequences: sequences)
        case .badgeIncrements:
            if value.integer != nil {
                return .badgeTotal(try DumpFields.signed(value, name: "value", fields: fields))
            }
        case .cleared:
            guard value.isObject else { break }
            guard value.member("context") != nil else {
                let seen = try vector(value, fields: fields, signed: false)
                return .context(VersionVector(seen.mapValues { UInt64(bitPattern: $0) }), badges: [])
            }
            let clear = try DumpFields(
                value, context: fields.context.value, line: fields.line, allowed: ["context", "badges"])
            let seen = try vector(try clear.value("context"), fields: clear, signed: false)
            guard let items = try clear.value("badges").elements, !items.isEmpty else {
                throw clear.error("\"badges\" must be a nonempty array")
            }
            var marks: [BadgeMark] = []
            for (index, item) in items.enumerated() {
                let mark = try DumpFields(
                    item, context: clear.context.badge(index), line: fields.line,
                    allowed: ["tab", "replica", "total", "sequence"])
                marks.append(
                    BadgeMark(
                        tab: try mark.tab("tab"), replica: try mark.replica("replica"),
                        total: try DumpFields.signed(try mark.value("total"), name: "total", fields: mark),
                        sequence: try mark.unsigned("sequence")))
            }
            return .context(VersionVector(seen.mapValues { UInt64(bitPattern: $0) }), badges: marks)
        }
        throw fields.error("\"value\" (\(value.kind)) does not fit a \(DumpEntryKind.name(of: key)) entry")
    }

    private static func hexKey(_ hex: String, fields: DumpFields) throws(DumpError) -> [UInt8] {
        guard let bytes = Array(hex.utf8).withUnsafeBufferPointer(hexBytes) else {
            throw fields.error("invalid position key \"\(hex)\"")
        }
        return bytes
    }

    /// The bytes an even, nonempty run of hex digits (either case) spells, or nil.
    static func hexBytes(_ digits: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard digits.count % 2 == 0, !digits.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = DumpJSONParser.hexValue(digits[index]),
                let low = DumpJSONParser.hexValue(digits[index + 1])
            else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func vector(_ value: DumpJSONValue, fields: DumpFields, signed: Bool) throws(DumpError)
        -> [ReplicaID: Int64]
    {
        guard let members = value.members else { throw fields.error("expected an object of replicas") }
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
