import TabKeep

/// Reads a document line exactly as ``DumpWriter`` writes it — members in their fixed order, no
/// whitespace, no escapes — straight from the bytes, without the generic JSON tree.
///
/// It only ever accepts lines that the generic path (``DumpJSONParser`` and ``DumpFields``) would
/// read to the same key and entries. Anything else — an escape, another member order, a value
/// out of range, a bad identifier — makes it give up (``Unusual``), and the reader then reads the
/// line the generic way, so every refusal keeps its message.
struct DumpDocumentScanner {
    /// The line is not in the writer's exact shape: read it the generic way.
    struct Unusual: Error {}

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private static let prefix = Array(#"{"type":"document","profile":""#.utf8)

    /// Whether `bytes` starts like a document line written by ``DumpWriter``.
    static func looksLikeDocument(_ bytes: [UInt8]) -> Bool {
        bytes.count > prefix.count && bytes.starts(with: prefix)
    }

    /// The key and entries of a document line, or ``Unusual``.
    static func scan(_ line: [UInt8]) throws(Unusual) -> (key: DocumentKey, entries: [Entry]) {
        let result = line.withUnsafeBufferPointer { buffer -> (key: DocumentKey, entries: [Entry])? in
            var scanner = DumpDocumentScanner(buffer)
            return try? scanner.document()
        }
        guard let result else { throw Unusual() }
        return result
    }

    // MARK: Line

    private mutating func document() throws(Unusual) -> (key: DocumentKey, entries: [Entry]) {
        index = Self.prefix.count
        let profile = ProfileID(unchecked: try identifier(maxBytes: ProfileID.maxBytes))
        try expect(#","bar":""#)
        let bar = BarID(unchecked: try identifier(maxBytes: BarID.maxBytes))
        try expect(#","layout":"#)
        if peek() == UInt8(ascii: "n") {
            try expect("null")
        } else {
            guard peek() == UInt8(ascii: "{") else { throw Unusual() }
            try skipValue(depth: 1)
        }
        try expect(#","entries":["#)
        var entries: [Entry] = []
        if peek() == UInt8(ascii: "]") {
            index += 1
        } else {
            while true {
                entries.append(try entry())
                if peek() == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                try expect("]")
                break
            }
        }
        try expect("}")
        guard index == bytes.count else { throw Unusual() }
        return (DocumentKey(profile: profile, bar: bar), entries)
    }

    // MARK: Entries

    private mutating func entry() throws(Unusual) -> Entry {
        try expect(#"{"kind":""#)
        let kindStart = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") { index += 1 }
        let kind = UnsafeBufferPointer(rebasing: bytes[kindStart..<index])
        try expect("\"")
        var tab: TabID?
        if matches(#","tab":""#) {
            tab = TabID(unchecked: try identifier(maxBytes: TabID.maxBytes))
        }
        var replica: ReplicaID?
        if matches(#","replica":"#) {
            replica = try replicaString()
        }
        let key: Entry.Key
        switch Self.kindCode(kind) {
        case 1?: key = .position(try Self.some(tab))
        case 2?: key = .customizable(try Self.some(tab))
        case 3?: key = .hidden(try Self.some(tab))
        case 4?: key = .selection
        case 5?: key = .badgeText(try Self.some(tab))
        case 6?: key = .badgeReset(try Self.some(tab))
        case 7?: key = .badgeIncrements(try Self.some(tab), try Self.some(replica))
        case 8?: key = .cleared
        default: throw Unusual()
        }
        // The generic path refuses a tab on an entry without one and ignores a stray replica.
        if key.tab == nil && tab != nil { throw Unusual() }
        if case .badgeIncrements = key {} else if replica != nil { throw Unusual() }
        let value: Entry.Value
        if matches(#","removed":true"#) {
            value = .removed
        } else {
            try expect(#","value":"#)
            value = try self.value(of: key)
        }
        try expect(#","stamp":"#)
        let stamp = try unsigned()
        try expect(#","origin":"#)
        let origin = try replicaString()
        try expect(#","dot":""#)
        let dotReplica = try replicaHex()
        try expect(":")
        let sequence = try digits()
        guard sequence > 0 else { throw Unusual() }
        try expect("\"}")
        return Entry(
            key: key, value: value, stamp: Stamp(rawValue: stamp), origin: origin,
            dot: Dot(replica: dotReplica, sequence: sequence))
    }

    private static func some<T>(_ value: T?) throws(Unusual) -> T {
        guard let value else { throw Unusual() }
        return value
    }

    /// 1…8 for the entry kinds ``DumpEntryKind`` names, in the order of `Entry.Key`.
    private static func kindCode(_ name: UnsafeBufferPointer<UInt8>) -> Int? {
        func equal(_ text: StaticString) -> Bool {
            text.withUTF8Buffer { $0.elementsEqual(name) }
        }
        switch name.count {
        case 8: return equal("position") ? 1 : nil
        case 12: return equal("customizable") ? 2 : nil
        case 6: return equal("hidden") ? 3 : nil
        case 9: return equal("selection") ? 4 : (equal("badgeText") ? 5 : nil)
        case 10: return equal("badgeReset") ? 6 : nil
        case 15: return equal("badgeIncrements") ? 7 : nil
        case 7: return equal("cleared") ? 8 : nil
        default: return nil
        }
    }

    private mutating func value(of key: Entry.Key) throws(Unusual) -> Entry.Value {
        switch key {
        case .position:
            if matches(#"{"after":"#) {
                let after = try optionalTab()
                try expect(#","next":"#)
                let next = try optionalTab()
                try expect(#","key":"#)
                let key = try hexKey()
                try expect("}")
                return .place(TabPlace(after: after, next: next, key: key))
            }
            return .position(try hexKey())
        case .customizable, .hidden:
            if matches("true") { return .flag(true) }
            try expect("false")
            return .flag(false)
        case .selection:
            if matches(#""more""#) { return .selection(.more) }
            if matches(#""none""#) { return .selection(.none) }
            try expect(#"{"tab":""#)
            let tab = TabID(unchecked: try identifier(maxBytes: TabID.maxBytes))
            try expect("}")
            return .selection(.tab(tab))
        case .badgeText:
            if matches("null") { return .text(nil) }
            try expect("\"")
            return .text(try text())
        case .badgeReset:
            try expect(#"{"count":"#)
            let count = try signed()
            try expect(#","seen":{"#)
            var seen: [ReplicaID: Int64] = [:]
            if !matches("}") {
                while true {
                    let replica = try replicaString()
                    try expect(":")
                    guard seen.updateValue(try signed(), forKey: replica) == nil else { throw Unusual() }
                    if matches(",") { continue }
                    try expect("}")
                    break
                }
            }
            var sequences: [ReplicaID: UInt64] = [:]
            if matches(#","sequences":"#) {
                sequences = try replicaObject()
                guard !sequences.isEmpty else { throw Unusual() }
            }
            try expect("}")
            return .badgeReset(count: count, seen: seen, sequences: sequences)
        case .badgeIncrements:
            return .badgeTotal(try signed())
        case .cleared:
            let wrapped = matches(#"{"context":"#)
            let seen = VersionVector(try replicaObject())
            guard wrapped else { return .context(seen, badges: []) }
            try expect(#","badges":["#)
            var marks: [BadgeMark] = []
            while true {
                try expect(#"{"tab":""#)
                let tab = TabID(unchecked: try identifier(maxBytes: TabID.maxBytes))
                try expect(#","replica":"#)
                let replica = try replicaString()
                try expect(#","total":"#)
                let total = try signed()
                try expect(#","sequence":"#)
                let sequence = try unsigned()
                try expect("}")
                marks.append(BadgeMark(tab: tab, replica: replica, total: total, sequence: sequence))
                if matches(",") { continue }
                try expect("]}")
                break
            }
            return .context(seen, badges: marks)
        }
    }

    // MARK: Pieces

    /// A quoted hex key, as the writer writes position keys.
    private mutating func hexKey() throws(Unusual) -> [UInt8] {
        try expect("\"")
        let start = index
        var result: [UInt8] = []
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            guard index + 1 < bytes.count, let high = DumpJSONParser.hexValue(bytes[index]),
                let low = DumpJSONParser.hexValue(bytes[index + 1])
            else { throw Unusual() }
            result.append(high << 4 | low)
            index += 2
        }
        guard index > start else { throw Unusual() }
        try expect("\"")
        return result
    }

    /// `null` or a quoted tab id.
    private mutating func optionalTab() throws(Unusual) -> TabID? {
        if matches("null") { return nil }
        try expect("\"")
        return TabID(unchecked: try identifier(maxBytes: TabID.maxBytes))
    }

    /// An object of replica ids to sequences: a clear's context.
    private mutating func replicaObject() throws(Unusual) -> [ReplicaID: UInt64] {
        try expect("{")
        var seen: [ReplicaID: UInt64] = [:]
        if !matches("}") {
            while true {
                let replica = try replicaString()
                try expect(":")
                guard seen.updateValue(try unsigned(), forKey: replica) == nil else { throw Unusual() }
                if matches(",") { continue }
                try expect("}")
                break
            }
        }
        return seen
    }

    @inline(__always)
    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    /// Steps over `text` if the line continues with it.
    @inline(__always)
    private mutating func matches(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        let start = text.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] { return false }
        index += count
        return true
    }

    @inline(__always)
    private mutating func expect(_ text: StaticString) throws(Unusual) {
        guard matches(text) else { throw Unusual() }
    }

    /// The rest of an escape-free string (the opening quote already read), up to its closing quote.
    private mutating func stringBytes() throws(Unusual) -> UnsafeBufferPointer<UInt8> {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let result = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return result
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { throw Unusual() }
            index += 1
        }
        throw Unusual()
    }

    private mutating func text() throws(Unusual) -> String {
        guard let text = ByteReader.text(try stringBytes()) else { throw Unusual() }
        return text
    }

    /// An identifier string (the opening quote already read) that keeps the identifier rules.
    private mutating func identifier(maxBytes: Int) throws(Unusual) -> String {
        let raw = try stringBytes()
        guard IdentifierRules.problem(in: raw, maxBytes: maxBytes) == nil, let text = ByteReader.text(raw)
        else {
            throw Unusual()
        }
        return text
    }

    /// `"` + 16 lowercase hex digits + `"`.
    private mutating func replicaString() throws(Unusual) -> ReplicaID {
        try expect("\"")
        let replica = try replicaHex()
        try expect("\"")
        return replica
    }

    /// 16 lowercase hex digits, as `ReplicaID(hex:)` reads them.
    private mutating func replicaHex() throws(Unusual) -> ReplicaID {
        guard bytes.count - index >= 16 else { throw Unusual() }
        var value: UInt64 = 0
        for offset in 0..<16 {
            let byte = bytes[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: throw Unusual()
            }
            value = value << 4 | UInt64(digit)
        }
        index += 16
        return ReplicaID(rawValue: value)
    }

    /// One or more decimal digits (leading zeros allowed), without overflow.
    private mutating func digits() throws(Unusual) -> UInt64 {
        let start = index
        var value: UInt64 = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            if overflow1 || overflow2 { throw Unusual() }
            value = sum
            index += 1
        }
        guard index > start else { throw Unusual() }
        return value
    }

    /// A JSON integer without a sign: no leading zero, not followed by a fraction or exponent.
    private mutating func unsigned() throws(Unusual) -> UInt64 {
        let start = index
        let value = try digits()
        if index - start > 1 && bytes[start] == UInt8(ascii: "0") { throw Unusual() }
        if let next = peek(),
            next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E")
        {
            throw Unusual()
        }
        return value
    }

    /// A JSON integer in `Int64`'s range.
    private mutating func signed() throws(Unusual) -> Int64 {
        if matches("-") {
            let magnitude = try unsigned()
            guard magnitude > 0, magnitude <= UInt64(Int64.max) + 1 else { throw Unusual() }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        let magnitude = try unsigned()
        guard magnitude <= UInt64(Int64.max) else { throw Unusual() }
        return Int64(magnitude)
    }

    // MARK: Skipping the layout

    /// Steps over one value, checking it as ``DumpJSONParser`` would (escape-free strings only,
    /// no duplicate member names, at most 32 deep); `depth` counts the objects and arrays around it.
    private mutating func skipValue(depth: Int) throws(Unusual) {
        guard let byte = peek() else { throw Unusual() }
        switch byte {
        case UInt8(ascii: "{"):
            guard depth < 32 else { throw Unusual() }
            index += 1
            if matches("}") { return }
            var names: [UnsafeBufferPointer<UInt8>] = []
            while true {
                try expect("\"")
                // Names are compared as Strings (canonical equivalence): keep to ASCII ones here.
                let name = try stringBytes()
                if name.contains(where: { $0 >= 0x80 }) { throw Unusual() }
                for other in names where other.elementsEqual(name) { throw Unusual() }
                names.append(name)
                try expect(":")
                try skipValue(depth: depth + 1)
                if matches(",") { continue }
                try expect("}")
                return
            }
        case UInt8(ascii: "["):
            guard depth < 32 else { throw Unusual() }
            index += 1
            if matches("]") { return }
            while true {
                try skipValue(depth: depth + 1)
                if matches(",") { continue }
                try expect("]")
                return
            }
        case UInt8(ascii: "\""):
            index += 1
            let raw = try stringBytes()
            if raw.contains(where: { $0 >= 0x80 }), ByteReader.text(raw) == nil { throw Unusual() }
        case UInt8(ascii: "t"): try expect("true")
        case UInt8(ascii: "f"): try expect("false")
        case UInt8(ascii: "n"): try expect("null")
        case UInt8(ascii: "-"):
            index += 1
            _ = try unsigned()
        default:
            _ = try unsigned()
        }
    }
}
