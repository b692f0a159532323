import TabKeep

/// The fast path of a version 3 dump: a stored document's bytes (the binary format of
/// `TabBarDocument.encoded()`) written straight as the `entries` of a document line, without
/// decoding them into a ``TabBarDocument`` (no entry array, no strings, no dictionaries).
///
/// It accepts exactly the bytes `TabBarDocument(decoding:)` accepts, checking the same bounds,
/// order, caps and values as it goes, and writes for them exactly what
/// ``DumpWriter/writeDocument(key:document:catalog:)`` writes for the decoded document (the slow
/// twin; `DumpTranscoderPropertyTests` compares the two). On anything it does not accept it
/// returns false, and the caller takes the slow path, which names the problem: a refusal needs
/// no message here, and a check stricter than the decoder's would only cost time, never a result.
package struct DumpTranscoder: Sendable {
    /// The dots of the entries read so far, and whether each is a tombstone: checked against the
    /// clear's context at the end (the clear comes last). Kept between documents.
    private var dots: [(replica: UInt64, sequence: UInt64, removed: Bool)] = []
    /// The clear's context, as read.
    private var context: [(replica: UInt64, sequence: UInt64)] = []

    /// A transcoder.
    package init() {}

    /// The most entries a document holds (`TabBarDocument.maxEntries`).
    static let maxEntries = 16_384
    /// The longest position key of a moved tab's place (`TabPlace.maxKeyLength`).
    static let maxPlaceKey = TabPlace.maxKeyLength
    /// The longest position key of the first document format.
    static let maxFirstFormatKey = 32
    /// The largest badge count or total (`Entry.maxBadge`).
    static let maxBadge: UInt64 = 1 << 40
    /// The longest badge text, in UTF-8 bytes.
    static let maxBadgeText = 64
    /// The most replicas of a badge reset or a clear's context.
    static let maxReplicas = 4096
    /// The most badge totals of a clear.
    static let maxBadgeMarks = 8192

    /// Appends the JSON array of the entries of the stored document `bytes` (version 3: one
    /// positional array per entry) to `output`; returns false, with `output` as it was, when the
    /// bytes are not a document `TabBarDocument(decoding:)` accepts.
    package mutating func appendEntries(of bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8])
        -> Bool
    {
        var json = DumpJSONOutput()
        guard transcode(bytes, &json) else { return false }
        json.withBytes(from: 0) { output.append(contentsOf: $0) }
        return true
    }

    /// ``appendEntries(of:to:)`` on a ``DumpJSONOutput``.
    mutating func transcode(_ bytes: UnsafeBufferPointer<UInt8>, _ output: inout DumpJSONOutput) -> Bool {
        var reader = Reader(bytes)
        dots.removeAll(keepingCapacity: true)
        context.removeAll(keepingCapacity: true)
        guard let format = reader.byte(), format == 1 || format == 2 else { return false }
        reader.allowsSecondForm = format == 2
        guard let count = reader.count(max: Self.maxEntries) else { return false }
        // A line is about 1.5 times the stored bytes, plus room for what escapes add.
        output.reserve(bytes.count * 2 + 64)
        output.raw("[")
        var previousKind: UInt8 = 0
        var previousTab: UnsafeBufferPointer<UInt8>?
        var previousReplica: UInt64 = 0
        var kindCount = 0
        var sawClear = false
        for index in 0..<count {
            if index > 0 { output.raw(",") }
            // Key: kind, tab, replica — strictly increasing in the canonical order.
            guard let kind = reader.byte(), kind <= 7 else { return false }
            let hasTab = kind != 3 && kind != 7
            var tab: UnsafeBufferPointer<UInt8>?
            if hasTab {
                guard let read = reader.identifier(max: 64) else { return false }
                tab = read
            }
            var replica: UInt64 = 0
            if kind == 6 {
                guard let read = reader.fixed64() else { return false }
                replica = read
            }
            if index > 0 {
                guard previousKind <= kind else { return false }
                if previousKind == kind {
                    if let tab, let previousTab {
                        let order = Self.compare(previousTab, tab)
                        guard order < 0 || (order == 0 && previousReplica < replica) else { return false }
                    } else {
                        return false  // a second selection or clear
                    }
                    kindCount += 1
                } else {
                    kindCount = 1
                }
            } else {
                kindCount = 1
            }
            guard kindCount <= (kind == 6 ? 8192 : 1024) else { return false }
            (previousKind, previousTab, previousReplica) = (kind, tab, replica)
            guard let stamp = reader.varint(), let origin = reader.fixed64(),
                let dotReplica = reader.fixed64(), let sequence = reader.varint(), sequence > 0
            else { return false }
            output.raw("[\"")
            output.raw(Self.kindNames[Int(kind)])
            output.raw("\"")
            if let tab {
                output.raw(",")
                output.string(bytes: tab)
            }
            if kind == 6 {
                output.raw(",")
                output.replica(ReplicaID(rawValue: replica))
            }
            output.raw(",")
            output.integer(stamp)
            output.raw(",")
            output.replica(ReplicaID(rawValue: origin))
            output.raw(",")
            output.dot(Dot(replica: ReplicaID(rawValue: dotReplica), sequence: sequence))
            guard let tag = reader.byte() else { return false }
            switch tag {
            case 0:
                guard kind != 7 else { return false }
                dots.append((dotReplica, sequence, true))
            case 1, 2:
                if tag == 2 {
                    guard reader.allowsSecondForm else { return false }
                    reader.sawSecondForm = true
                }
                output.raw(",")
                guard value(kind: kind, second: tag == 2, &reader, &output) else { return false }
                if kind == 7 {
                    sawClear = true
                } else {
                    dots.append((dotReplica, sequence, false))
                }
            default:
                return false
            }
            output.raw("]")
        }
        output.raw("]")
        guard reader.isAtEnd, format == 1 || reader.sawSecondForm else { return false }
        // Tombstones exactly where the clear's context covers (the canonical form).
        if sawClear {
            for dot in dots where covered(dot.replica, dot.sequence) != dot.removed { return false }
        } else if dots.contains(where: \.removed) {
            return false
        }
        return true
    }

    /// Whether the clear's context covers the dot.
    private func covered(_ replica: UInt64, _ sequence: UInt64) -> Bool {
        var low = 0
        var high = context.count
        while low < high {
            let middle = (low + high) / 2
            if context[middle].replica < replica { low = middle + 1 } else { high = middle }
        }
        return low < context.count && context[low].replica == replica && sequence <= context[low].sequence
    }

    /// The value of an entry of `kind` (its tag read: `second` for the second form).
    private mutating func value(
        kind: UInt8, second: Bool, _ reader: inout Reader, _ output: inout DumpJSONOutput
    ) -> Bool {
        switch (kind, second) {
        case (0, false):
            guard let key = reader.slice(max: Self.maxPlaceKey), let last = key.last, last != 0,
                key.count <= Self.maxFirstFormatKey
            else { return false }
            output.hexString(key)
        case (0, true):
            guard let after = reader.optionalTab(), let next = reader.optionalTab(),
                let key = reader.slice(max: Self.maxPlaceKey), let last = key.last, last != 0
            else { return false }
            output.raw("{")
            output.name("after")
            if let tab = after.tab { output.string(bytes: tab) } else { output.raw("null") }
            output.raw(",")
            output.name("next")
            if let tab = next.tab { output.string(bytes: tab) } else { output.raw("null") }
            output.raw(",")
            output.name("key")
            output.hexString(key)
            output.raw("}")
        case (1, false), (2, false):
            guard let flag = reader.byte(), flag <= 1 else { return false }
            output.bool(flag == 1)
        case (3, false):
            switch reader.byte() {
            case 0: output.raw("\"none\"")
            case 1: output.raw("\"more\"")
            case 2:
                guard let tab = reader.identifier(max: 64) else { return false }
                output.raw("{")
                output.name("tab")
                output.string(bytes: tab)
                output.raw("}")
            default: return false
            }
        case (4, false):
            switch reader.byte() {
            case 0: output.raw("null")
            case 1:
                guard let text = reader.slice(max: Self.maxBadgeText), Reader.isUTF8(text) else {
                    return false
                }
                output.string(bytes: text)
            default: return false
            }
        case (5, _):
            guard let count = reader.signed(), count >= 0, UInt64(count) <= Self.maxBadge,
                let seenCount = reader.count(max: Self.maxReplicas), !second || seenCount > 0
            else { return false }
            output.raw("{")
            output.name("count")
            output.integer(count)
            output.raw(",")
            output.name("seen")
            output.raw("{")
            // The sequences follow the totals in the stored bytes but in their own member: read
            // the list once, writing the totals, then again for the sequences.
            let listStart = reader.offset
            var previous: UInt64?
            for index in 0..<seenCount {
                guard let replica = reader.fixed64(), previous.map({ $0 < replica }) ?? true,
                    let total = reader.signed(), total.magnitude <= Self.maxBadge
                else { return false }
                previous = replica
                if second {
                    guard let sequence = reader.varint(), sequence > 0 else { return false }
                }
                if index > 0 { output.raw(",") }
                output.replica(ReplicaID(rawValue: replica))
                output.raw(":")
                output.integer(total)
            }
            output.raw("}")
            if second {
                let listEnd = reader.offset
                reader.offset = listStart
                output.raw(",")
                output.name("sequences")
                output.raw("{")
                for index in 0..<seenCount {
                    let replica = reader.fixed64()!
                    _ = reader.signed()!
                    let sequence = reader.varint()!
                    if index > 0 { output.raw(",") }
                    output.replica(ReplicaID(rawValue: replica))
                    output.raw(":")
                    output.integer(Int64(bitPattern: sequence))
                }
                output.raw("}")
                reader.offset = listEnd
            }
            output.raw("}")
        case (6, false):
            guard let total = reader.signed(), total.magnitude <= Self.maxBadge else { return false }
            output.integer(total)
        case (7, _):
            guard let replicaCount = reader.count(max: Self.maxReplicas) else { return false }
            var marks = 0
            if second {
                output.raw("{")
                output.name("context")
            }
            output.raw("{")
            for index in 0..<replicaCount {
                guard let replica = reader.fixed64(), context.last.map({ $0.replica < replica }) ?? true,
                    let sequence = reader.varint(), sequence > 0
                else { return false }
                context.append((replica, sequence))
                if index > 0 { output.raw(",") }
                output.replica(ReplicaID(rawValue: replica))
                output.raw(":")
                output.integer(sequence)
            }
            output.raw("}")
            guard second else { return true }
            guard let count = reader.count(max: Self.maxBadgeMarks), count > 0 else { return false }
            marks = count
            output.raw(",")
            output.name("badges")
            output.raw("[")
            var previousTab: UnsafeBufferPointer<UInt8>?
            var previousReplica: UInt64 = 0
            for index in 0..<marks {
                guard let tab = reader.identifier(max: 64), let replica = reader.fixed64(),
                    let total = reader.signed(), let sequence = reader.varint()
                else { return false }
                if let previousTab {
                    let order = Self.compare(previousTab, tab)
                    guard order < 0 || (order == 0 && previousReplica < replica) else { return false }
                }
                guard total.magnitude <= Self.maxBadge, sequence > 0 else { return false }
                (previousTab, previousReplica) = (tab, replica)
                if index > 0 { output.raw(",") }
                output.raw("{")
                output.name("tab")
                output.string(bytes: tab)
                output.raw(",")
                output.name("replica")
                output.replica(ReplicaID(rawValue: replica))
                output.raw(",")
                output.name("total")
                output.integer(total)
                output.raw(",")
                output.name("sequence")
                output.integer(sequence)
                output.raw("}")
            }
            output.raw("]}")
        default:
            return false
        }
        return true
    }

    /// The names of the kinds, by their byte.
    private static let kindNames: [StaticString] = [
        "position", "customizable", "hidden", "selection", "badgeText", "badgeReset", "badgeIncrements",
        "cleared",
    ]

    /// Three-way byte-wise comparison.
    @inline(__always)
    static func compare(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Int {
        let shared = min(lhs.count, rhs.count)
        for index in 0..<shared where lhs[index] != rhs[index] {
            return lhs[index] < rhs[index] ? -1 : 1
        }
        return lhs.count - rhs.count
    }

    /// The primitives of the binary format, as the decoder reads them (every bound checked,
    /// varints canonical), returning nil where the decoder throws.
    struct Reader {
        let buffer: UnsafeBufferPointer<UInt8>
        var offset = 0
        var allowsSecondForm = false
        var sawSecondForm = false

        init(_ buffer: UnsafeBufferPointer<UInt8>) {
            self.buffer = buffer
        }

        var isAtEnd: Bool { offset == buffer.count }

        @inline(__always)
        mutating func byte() -> UInt8? {
            guard offset < buffer.count else { return nil }
            defer { offset += 1 }
            return buffer[offset]
        }

        /// Unsigned LEB128: no overlong encoding, no overflow.
        @inline(__always)
        mutating func varint() -> UInt64? {
            if offset < buffer.count, buffer[offset] < 0x80 {
                defer { offset += 1 }
                return UInt64(buffer[offset])
            }
            return longVarint()
        }

        /// ``varint()`` past its first byte: `VarintWord` when ten bytes are left, else the byte loop.
        private mutating func longVarint() -> UInt64? {
            if buffer.count - offset >= 10 {
                if let (value, length) = VarintWord.decode(at: UnsafeRawPointer(buffer.baseAddress! + offset))
                {
                    offset += length
                    return value
                }
            }
            return varintByBytes()
        }

        /// A varint read a byte at a time, as the decoder's own byte loop reads it.
        mutating func varintByBytes() -> UInt64? {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            let start = offset
            while true {
                guard offset < buffer.count else { return nil }
                let byte = buffer[offset]
                offset += 1
                let payload = UInt64(byte & 0x7F)
                if shift == 63 && payload > 1 { return nil }
                result |= payload << shift
                if byte & 0x80 == 0 {
                    if byte == 0 && offset - start > 1 { return nil }
                    return result
                }
                shift += 7
                if shift > 63 { return nil }
            }
        }

        mutating func count(max limit: Int) -> Int? {
            guard let value = varint(), value <= UInt64(limit) else { return nil }
            return Int(value)
        }

        mutating func signed() -> Int64? {
            guard let raw = varint() else { return nil }
            return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
        }

        @inline(__always)
        mutating func fixed64() -> UInt64? {
            guard buffer.count - offset >= 8 else { return nil }
            let value = UnsafeRawPointer(buffer.baseAddress! + offset).loadUnaligned(as: UInt64.self)
            offset += 8
            return UInt64(bigEndian: value)
        }

        mutating func slice(max limit: Int) -> UnsafeBufferPointer<UInt8>? {
            guard let length = count(max: limit), length <= buffer.count - offset else { return nil }
            defer { offset += length }
            return UnsafeBufferPointer(rebasing: buffer[offset..<offset + length])
        }

        /// A length-prefixed identifier: the identifier rules, and valid UTF-8.
        mutating func identifier(max limit: Int) -> UnsafeBufferPointer<UInt8>? {
            guard let bytes = slice(max: limit), IdentifierRules.problem(in: bytes, maxBytes: limit) == nil,
                Self.isUTF8(bytes)
            else { return nil }
            return bytes
        }

        /// An optional tab: nil when the bytes are wrong, else the tab or none.
        mutating func optionalTab() -> (tab: UnsafeBufferPointer<UInt8>?, Void)? {
            switch byte() {
            case 0: return (nil, ())
            case 1:
                guard let tab = identifier(max: 64) else { return nil }
                return (tab, ())
            default: return nil
            }
        }

        /// Whether `bytes` are valid UTF-8 (ASCII checked here, the rest as the decoder checks it).
        @inline(__always)
        static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            for byte in bytes where byte >= 0x80 {
                return ByteReader.text(bytes) != nil
            }
            return true
        }
    }
}
