extension TabBarDocument {
    /// The format byte of documents that use only the first version's values.
    static let formatVersion: UInt8 = 1
    /// The format byte of documents holding a ``TabPlace`` or a clear's badge totals (value tag 2).
    /// Writing 1 whenever possible keeps documents that need nothing new readable by older code.
    static let formatVersion2: UInt8 = 2

    /// Compact, canonical binary: the same document always encodes to the same bytes.
    ///
    /// Format byte, entry count, then each entry in key order: kind, key, stamp, origin, dot, value.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes.reserveCapacity(16 + storage.count * 32)
        let usesVersion2 = storage.contains { ByteWriter.tag(of: $0.value) == 2 }
        writer.byte(usesVersion2 ? TabBarDocument.formatVersion2 : TabBarDocument.formatVersion)
        writer.varint(UInt64(storage.count))
        for entry in storage {
            writer.entry(entry)
        }
        return writer.bytes
    }

    /// Decodes `encoded()` output, checking every bound, the canonical order, the caps and every value.
    public init(decoding bytes: some Collection<UInt8>) throws(DocumentDecodingError) {
        let result: Result<[Entry], DocumentDecodingError>
        if let direct = bytes.withContiguousStorageIfAvailable({ TabBarDocument.decode($0) }) {
            result = direct
        } else {
            result = Array(bytes).withUnsafeBufferPointer { TabBarDocument.decode($0) }
        }
        self.init(sorted: try result.get())
    }

    private static func decode(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<[Entry], DocumentDecodingError>
    {
        do throws(DocumentDecodingError) {
            var reader = ByteReader(buffer)
            let format = try reader.byte()
            guard format == formatVersion || format == formatVersion2 else {
                return .failure(DocumentDecodingError(offset: 0, reason: "unknown document format \(format)"))
            }
            reader.allowsVersion2Values = format == formatVersion2
            reader.sawVersion2Value = false
            let count = try reader.count(max: maxEntries, "entry count")
            var entries: [Entry] = []
            // Every entry takes at least 20 bytes: never reserve more than the input can hold.
            entries.reserveCapacity(min(count, reader.remaining / 20))
            var kindCount = 0
            for _ in 0..<count {
                let start = reader.offset
                let entry = try reader.entry()
                if let previous = entries.last {
                    guard previous.key < entry.key else {
                        throw DocumentDecodingError(offset: start, reason: "entries not in canonical order")
                    }
                    kindCount = previous.key.code == entry.key.code ? kindCount + 1 : 1
                } else {
                    kindCount = 1
                }
                guard kindCount <= Entry.Key.maxCount(code: entry.key.code) else {
                    throw DocumentDecodingError(offset: start, reason: "too many entries of one kind")
                }
                entries.append(entry)
            }
            guard reader.isAtEnd else { throw reader.fail("trailing bytes") }
            if format == formatVersion2 && !reader.sawVersion2Value {
                return .failure(
                    DocumentDecodingError(
                        offset: 0, reason: "format 2 for a document that needs only format 1"))
            }
            // Tombstones exactly where the clear's context covers: the canonical form.
            if let last = entries.last, case .context(let context, _) = last.value {
                for entry in entries.dropLast() where context.contains(entry.dot) != (entry.value == .removed)
                {
                    return .failure(
                        DocumentDecodingError(
                            offset: buffer.count,
                            reason: "entry \(entry.key) disagrees with the clear's context"))
                }
            } else if entries.contains(where: { $0.value == .removed }) {
                return .failure(
                    DocumentDecodingError(offset: buffer.count, reason: "removed entry without a clear"))
            }
            return .success(entries)
        } catch {
            return .failure(error)
        }
    }
}

extension ByteWriter {
    mutating func entry(_ entry: Entry) {
        byte(entry.key.code)
        switch entry.key {
        case .position(let tab), .customizable(let tab), .hidden(let tab), .badgeText(let tab),
            .badgeReset(let tab):
            string(tab.rawValue)
        case .badgeIncrements(let tab, let replica):
            string(tab.rawValue)
            fixed64(replica.rawValue)
        case .selection, .cleared:
            break
        }
        varint(entry.stamp.rawValue)
        fixed64(entry.origin.rawValue)
        fixed64(entry.dot.replica.rawValue)
        varint(entry.dot.sequence)
        value(entry.value)
    }

    /// The tag byte of a value: 0 removed, 1 present, 2 present in a form of document format 2.
    static func tag(of value: Entry.Value) -> UInt8 {
        switch value {
        case .removed: 0
        case .place: 2
        case .context(_, let badges): badges.isEmpty ? 1 : 2
        case .badgeReset(_, _, let sequences): sequences.isEmpty ? 1 : 2
        default: 1
        }
    }

    /// A tag byte (see ``tag(of:)``) then the value; the key says which kind it is.
    mutating func value(_ value: Entry.Value) {
        byte(ByteWriter.tag(of: value))
        switch value {
        case .position(let key):
            data(key)
        case .place(let place):
            optionalTab(place.after)
            optionalTab(place.next)
            data(place.key)
        case .flag(let flag):
            byte(flag ? 1 : 0)
        case .selection(.none):
            byte(0)
        case .selection(.more):
            byte(1)
        case .selection(.tab(let tab)):
            byte(2)
            string(tab.rawValue)
        case .text(let text):
            if let text {
                byte(1)
                string(text)
            } else {
                byte(0)
            }
        case .badgeReset(let count, let seen, let sequences):
            signed(count)
            varint(UInt64(seen.count))
            for replica in seen.keys.sorted() {
                fixed64(replica.rawValue)
                signed(seen[replica]!)
                if !sequences.isEmpty { varint(sequences[replica] ?? 0) }
            }
        case .badgeTotal(let total):
            signed(total)
        case .context(let vector, let badges):
            let replicas = vector.replicas
            varint(UInt64(replicas.count))
            for replica in replicas {
                fixed64(replica.rawValue)
                varint(vector[replica])
            }
            if badges.isEmpty { break }
            varint(UInt64(badges.count))
            for mark in badges {
                string(mark.tab.rawValue)
                fixed64(mark.replica.rawValue)
                signed(mark.total)
                varint(mark.sequence)
            }
        case .removed:
            break
        }
    }

    mutating func optionalTab(_ tab: TabID?) {
        if let tab {
            byte(1)
            string(tab.rawValue)
        } else {
            byte(0)
        }
    }
}

extension ByteReader {
    mutating func entry() throws(DocumentDecodingError) -> Entry {
        let start = offset
        let code = try byte()
        let key: Entry.Key
        switch code {
        case 0: key = .position(try tab())
        case 1: key = .customizable(try tab())
        case 2: key = .hidden(try tab())
        case 3: key = .selection
        case 4: key = .badgeText(try tab())
        case 5: key = .badgeReset(try tab())
        case 6: key = .badgeIncrements(try tab(), ReplicaID(rawValue: try fixed64()))
        case 7: key = .cleared
        default:
            offset = start
            throw fail("unknown entry kind \(code)")
        }
        let stamp = Stamp(rawValue: try varint())
        let origin = ReplicaID(rawValue: try fixed64())
        let dotReplica = ReplicaID(rawValue: try fixed64())
        let sequenceStart = offset
        let sequence = try varint()
        guard sequence > 0 else {
            offset = sequenceStart
            throw fail("dot sequence 0")
        }
        let dot = Dot(replica: dotReplica, sequence: sequence)
        let valueStart = offset
        let value = try self.value(for: key)
        let entry = Entry(key: key, value: value, stamp: stamp, origin: origin, dot: dot)
        if let problem = Entry.problem(of: entry, checkingIdentifiers: false) {
            offset = valueStart
            throw fail(problem)
        }
        return entry
    }

    mutating func value(for key: Entry.Key) throws(DocumentDecodingError) -> Entry.Value {
        let tag = try byte()
        guard tag <= 1 || (tag == 2 && allowsVersion2Values) else { throw fail("unknown value tag \(tag)") }
        if tag == 0 {
            guard key != .cleared else { throw fail("a clear cannot be removed") }
            return .removed
        }
        if tag == 2 {
            sawVersion2Value = true
            switch key {
            case .position:
                let after = try optionalTab()
                let next = try optionalTab()
                let start = offset
                let bytes = try slice(max: TabPlace.maxKeyLength, "position key")
                guard let last = bytes.last, last != 0 else {
                    offset = start
                    throw fail("position key must be nonempty and not end in 0x00")
                }
                return .place(TabPlace(after: after, next: next, key: Array(bytes)))
            case .cleared:
                let vector = try contextVector()
                let markCount = try self.count(max: Entry.maxBadgeMarks, "clear's badge total count")
                guard markCount > 0 else {
                    throw fail("a clear's badge totals in format 2 must not be empty")
                }
                var marks: [BadgeMark] = []
                marks.reserveCapacity(min(markCount, remaining / 12))
                for _ in 0..<markCount {
                    let tab = try tab()
                    let replica = ReplicaID(rawValue: try fixed64())
                    let total = try signed()
                    let sequence = try varint()
                    let mark = BadgeMark(tab: tab, replica: replica, total: total, sequence: sequence)
                    if let previous = marks.last, !(previous < mark) {
                        throw fail("clear's badge totals not in order")
                    }
                    marks.append(mark)
                }
                return .context(vector, badges: marks)
            case .badgeReset:
                return try badgeReset(sequenced: true)
            default:
                throw fail("value tag 2 on an entry that has no second form")
            }
        }
        switch key {
        case .position:
            let start = offset
            let bytes = try slice(max: FractionalKey.maxLength, "position key")
            guard let last = bytes.last, last != 0 else {
                offset = start
                throw fail("position key must be nonempty and not end in 0x00")
            }
            return .position(Array(bytes))
        case .customizable, .hidden:
            let flag = try byte()
            guard flag <= 1 else { throw fail("flag \(flag) is not 0 or 1") }
            return .flag(flag == 1)
        case .selection:
            switch try byte() {
            case 0: return .selection(.none)
            case 1: return .selection(.more)
            case 2: return .selection(.tab(try tab()))
            default: throw fail("unknown selection kind")
            }
        case .badgeText:
            switch try byte() {
            case 0: return .text(nil)
            case 1: return .text(try string(max: Entry.maxBadgeTextBytes, "badge text"))
            default: throw fail("unknown badge text kind")
            }
        case .badgeReset:
            return try badgeReset(sequenced: false)
        case .badgeIncrements:
            return .badgeTotal(try signed())
        case .cleared:
            return .context(try contextVector(), badges: [])
        }
    }

    /// A badge set: its count and the totals it had seen, each with the sequence that wrote it in
    /// format 2 (`sequenced`), without in format 1.
    mutating func badgeReset(sequenced: Bool) throws(DocumentDecodingError) -> Entry.Value {
        let count = try signed()
        let seenCount = try self.count(max: Entry.maxReplicas, "badge reset replica count")
        if sequenced && seenCount == 0 { throw fail("a badge reset in format 2 must list its totals") }
        var seen: [ReplicaID: Int64] = [:]
        seen.reserveCapacity(min(seenCount, remaining / 9))
        var sequences: [ReplicaID: UInt64] = [:]
        var previous: ReplicaID?
        for _ in 0..<seenCount {
            let replica = ReplicaID(rawValue: try fixed64())
            if let previous, !(previous < replica) { throw fail("badge reset replicas not in order") }
            previous = replica
            seen[replica] = try signed()
            if sequenced {
                let sequence = try varint()
                guard sequence > 0 else { throw fail("badge reset with sequence 0") }
                sequences[replica] = sequence
            }
        }
        return .badgeReset(count: count, seen: seen, sequences: sequences)
    }

    mutating func contextVector() throws(DocumentDecodingError) -> VersionVector {
        let replicaCount = try self.count(max: Entry.maxReplicas, "context replica count")
        var vector = VersionVector()
        vector.reserveCapacity(min(replicaCount, remaining / 9))
        var previous: ReplicaID?
        for _ in 0..<replicaCount {
            let replica = ReplicaID(rawValue: try fixed64())
            if let previous, !(previous < replica) { throw fail("context replicas not in order") }
            previous = replica
            let sequence = try varint()
            guard sequence > 0 else { throw fail("context sequence 0") }
            _ = vector.appendInOrder(replica, sequence)  // checked in order and nonzero just above
        }
        return vector
    }

    mutating func optionalTab() throws(DocumentDecodingError) -> TabID? {
        switch try byte() {
        case 0: return nil
        case 1: return try tab()
        default: throw fail("expected 0 or 1 before an optional tab id")
        }
    }
}
