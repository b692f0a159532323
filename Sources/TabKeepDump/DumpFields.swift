import TabKeep

/// The members of one JSON object of a dump line, read strictly: each required member present with
/// the right kind, and no member the format does not define.
struct DumpFields {
    let members: [String: DumpJSONValue]
    /// Where the object is, for messages ("entry 3", "tab 2 of the catalog").
    let context: String
    let line: Int

    init(_ value: DumpJSONValue, context: String, line: Int, allowed: Set<String>) throws(DumpError) {
        guard case .object(let members) = value else {
            throw DumpError(line: line, reason: "\(context) is \(value.kind), not an object")
        }
        self.members = members
        self.context = context
        self.line = line
        for name in members.keys.sorted() where !allowed.contains(name) {
            throw error("unknown member \"\(name)\"")
        }
    }

    func error(_ reason: String) -> DumpError {
        DumpError(line: line, reason: context.isEmpty ? reason : "\(context): \(reason)")
    }

    func value(_ name: String) throws(DumpError) -> DumpJSONValue {
        guard let value = members[name] else { throw error("missing \"\(name)\"") }
        return value
    }

    func string(_ name: String) throws(DumpError) -> String {
        let value = try value(name)
        guard case .string(let text) = value else {
            throw error("\"\(name)\" is \(value.kind), not a string")
        }
        return text
    }

    func bool(_ name: String) throws(DumpError) -> Bool {
        let value = try value(name)
        guard case .bool(let flag) = value else { throw error("\"\(name)\" is \(value.kind), not a boolean") }
        return flag
    }

    func unsigned(_ name: String) throws(DumpError) -> UInt64 {
        try Self.unsigned(try value(name), name: name, fields: self)
    }

    static func unsigned(_ value: DumpJSONValue, name: String, fields: DumpFields) throws(DumpError) -> UInt64
    {
        guard case .integer(let negative, let magnitude) = value else {
            throw fields.error("\"\(name)\" is \(value.kind), not a number")
        }
        if negative && magnitude != 0 { throw fields.error("\"\(name)\" must not be negative") }
        return magnitude
    }

    static func signed(_ value: DumpJSONValue, name: String, fields: DumpFields) throws(DumpError) -> Int64 {
        guard case .integer(let negative, let magnitude) = value else {
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

    func profile(_ name: String) throws(DumpError) -> ProfileID {
        try identifier(try string(name)) { (text) throws(IdentifierError) in try ProfileID(text) }
    }

    func bar(_ name: String) throws(DumpError) -> BarID {
        try identifier(try string(name)) { (text) throws(IdentifierError) in try BarID(text) }
    }

    func tab(_ name: String) throws(DumpError) -> TabID {
        try tab(text: try string(name))
    }

    func tab(text: String) throws(DumpError) -> TabID {
        try identifier(text) { (text) throws(IdentifierError) in try TabID(text) }
    }

    func replica(text: String) throws(DumpError) -> ReplicaID {
        try identifier(text) { (text) throws(IdentifierError) in try ReplicaID(hex: text) }
    }
}
