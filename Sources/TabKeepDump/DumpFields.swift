import TabKeep

/// The members of one JSON object of a dump line, read strictly: each required member present with
/// the right kind, and no member the format does not define.
struct DumpFields {
    let object: DumpJSONValue
    /// Where the object is, for messages ("…, entry 3", "catalog tab 2").
    let context: DumpContext
    let line: Int

    init(_ value: DumpJSONValue, context: DumpContext, line: Int, allowed: [StaticString]) throws(DumpError) {
        guard value.isObject else {
            throw DumpError(line: line, reason: "\(context) is \(value.kind), not an object")
        }
        self.object = value
        self.context = context
        self.line = line
        if let first = value.firstUnknownName(allowed: allowed) { throw error("unknown member \"\(first)\"") }
    }

    /// Fields of a value that is not an object (a version 3 entry's array): only for the errors,
    /// identifiers and numbers read through them; it has no members.
    init(positional value: DumpJSONValue, context: DumpContext, line: Int) {
        self.object = value
        self.context = context
        self.line = line
    }

    /// The member called `name`, if the object has it.
    func member(_ name: StaticString) -> DumpJSONValue? {
        object.member(name)
    }

    func error(_ reason: String) -> DumpError {
        let place = context.description
        return DumpError(line: line, reason: place.isEmpty ? reason : "\(place): \(reason)")
    }

    func value(_ name: StaticString) throws(DumpError) -> DumpJSONValue {
        guard let value = member(name) else { throw error("missing \"\(name)\"") }
        return value
    }

    func string(_ name: StaticString) throws(DumpError) -> String {
        let value = try value(name)
        guard let text = value.string else {
            throw error("\"\(name)\" is \(value.kind), not a string")
        }
        return text
    }

    func bool(_ name: StaticString) throws(DumpError) -> Bool {
        let value = try value(name)
        guard let flag = value.bool else { throw error("\"\(name)\" is \(value.kind), not a boolean") }
        return flag
    }

    func unsigned(_ name: StaticString) throws(DumpError) -> UInt64 {
        try Self.unsigned(try value(name), name: "\(name)", fields: self)
    }

    static func unsigned(_ value: DumpJSONValue, name: String, fields: DumpFields) throws(DumpError) -> UInt64
    {
        guard let (negative, magnitude) = value.integer else {
            throw fields.error("\"\(name)\" is \(value.kind), not a number")
        }
        if negative && magnitude != 0 { throw fields.error("\"\(name)\" must not be negative") }
        return magnitude
    }

    static func signed(_ value: DumpJSONValue, name: String, fields: DumpFields) throws(DumpError) -> Int64 {
        guard let (negative, magnitude) = value.integer else {
            throw fields.error("\"\(name)\" is \(value.kind), not a number")
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else {
                throw fields.error("\"\(name)\" is out of range")
            }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { throw fields.error("\"\(name)\" is out of range") }
        return Int64(magnitude)
    }

    // MARK: Identifiers

    func identifier<T>(_ text: String, _ make: (String) throws(IdentifierError) -> T) throws(DumpError) -> T {
        do {
            return try make(text)
        } catch {
            throw self.error(Self.shorten(error).description)
        }
    }

    /// An identifier error whose value is cut to 40 characters, so a message stays one line.
    static func shorten(_ error: IdentifierError) -> IdentifierError {
        var short = error
        if short.value.count > 40 { short.value = String(short.value.prefix(40)) + "…" }
        return short
    }

    func profile(_ name: StaticString) throws(DumpError) -> ProfileID {
        if let text = plainIdentifier(name, maxBytes: ProfileID.maxBytes) {
            return ProfileID(unchecked: text)
        }
        return try identifier(try string(name)) { (text) throws(IdentifierError) in try ProfileID(text) }
    }

    func bar(_ name: StaticString) throws(DumpError) -> BarID {
        if let text = plainIdentifier(name, maxBytes: BarID.maxBytes) { return BarID(unchecked: text) }
        return try identifier(try string(name)) { (text) throws(IdentifierError) in try BarID(text) }
    }

    func tab(_ name: StaticString) throws(DumpError) -> TabID {
        if let text = plainIdentifier(name, maxBytes: TabID.maxBytes) { return TabID(unchecked: text) }
        return try tab(text: try string(name))
    }

    /// The text of member `name` when it is a string without an escape that keeps the identifier
    /// rules, checked on the line's bytes; nil otherwise, and the checking initializer names the
    /// problem.
    private func plainIdentifier(_ name: StaticString, maxBytes: Int) -> String? {
        guard let value = member(name) else { return nil }
        return Self.plainIdentifier(value, maxBytes: maxBytes)
    }

    /// ``plainIdentifier(_:maxBytes:)`` of a value.
    private static func plainIdentifier(_ value: DumpJSONValue, maxBytes: Int) -> String? {
        let text = value.line.withRawText(at: value.index) { raw -> String? in
            IdentifierRules.problem(in: raw, maxBytes: maxBytes) == nil ? ByteReader.text(raw) : nil
        }
        return text ?? nil
    }

    /// The tab id `value` holds (`what` names it in the error when it is no string).
    func tab(value: DumpJSONValue, what: StaticString) throws(DumpError) -> TabID {
        if let text = Self.plainIdentifier(value, maxBytes: TabID.maxBytes) { return TabID(unchecked: text) }
        guard let text = value.string else { throw error("\(what) is \(value.kind), not a string") }
        return try tab(text: text)
    }

    /// The replica id `value` holds (`what` names it in the error when it is no string).
    func replica(value: DumpJSONValue, what: StaticString) throws(DumpError) -> ReplicaID {
        if let replica = value.line.withRawText(at: value.index, Self.replicaHex) ?? nil { return replica }
        guard let text = value.string else { throw error("\(what) is \(value.kind), not a string") }
        return try replica(text: text)
    }

    func tab(text: String) throws(DumpError) -> TabID {
        try identifier(text) { (text) throws(IdentifierError) in try TabID(text) }
    }

    /// The replica id in member `name`: 16 lowercase hex digits.
    func replica(_ name: StaticString) throws(DumpError) -> ReplicaID {
        if let value = member(name),
            let replica = value.line.withRawText(at: value.index, Self.replicaHex) ?? nil
        {
            return replica
        }
        return try replica(text: try string(name))
    }

    /// The replica id `raw` spells as `ReplicaID(hex:)` reads it, or nil.
    static func replicaHex(_ raw: UnsafeBufferPointer<UInt8>) -> ReplicaID? {
        guard raw.count == 16 else { return nil }
        var value: UInt64 = 0
        var invalid: UInt8 = 0
        lowercaseHex.withUnsafeBufferPointer { digits in
            for byte in raw {
                let digit = digits[Int(byte)]
                invalid |= digit
                value = value << 4 | UInt64(digit & 0x0F)
            }
        }
        return invalid & 0x80 == 0 ? ReplicaID(rawValue: value) : nil
    }

    /// Each byte's value as a lowercase hex digit, or 0x80 when it is none.
    private static let lowercaseHex: [UInt8] = (0..<256).map { byte -> UInt8 in
        switch byte {
        case 0x30...0x39: UInt8(byte - 0x30)
        case 0x61...0x66: UInt8(byte - 0x61 + 10)
        default: 0x80
        }
    }

    func replica(text: String) throws(DumpError) -> ReplicaID {
        try identifier(text) { (text) throws(IdentifierError) in try ReplicaID(hex: text) }
    }
}

/// Where an object is in a dump line, for messages: its text is made only when a message needs it,
/// not for every entry read.
struct DumpContext: ExpressibleByStringLiteral, CustomStringConvertible {
    /// "header", "catalog tab 2", "document", or a document's `profile "…" bar "…"`.
    var base: String
    /// The entry's number (from 1) in a document line, if the object is in an entry.
    var entry: Int?
    /// Whether the object is an entry's value.
    var isValue = false
    /// The badge's index in a clear's value, if the object is one.
    var badge: Int?

    init(_ base: String, entry: Int? = nil) {
        self.base = base
        self.entry = entry
    }

    init(stringLiteral base: String) {
        self.init(base)
    }

    /// The context of this entry's value.
    var value: DumpContext {
        var result = self
        result.isValue = true
        return result
    }

    /// The context of badge `index` of this value.
    func badge(_ index: Int) -> DumpContext {
        var result = self
        result.badge = index
        return result
    }

    var description: String {
        var text = base
        if let entry { text += ", entry \(entry)" }
        if isValue { text += " value" }
        if let badge { text += " badge \(badge)" }
        return text
    }
}
