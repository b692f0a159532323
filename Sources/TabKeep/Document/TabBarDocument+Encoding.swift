extension TabBarDocument {
    /// The format byte of encoded documents.
    static let formatVersion: UInt8 = 1

    /// Compact, canonical binary: the same document always encodes to the same bytes.
    ///
    /// Format byte, entry count, then each entry in key order: kind, key, stamp, origin, dot, value.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes.reserveCapacity(16 + storage.count * 32)
        writer.byte(TabBarDocument.formatVersion)
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
            guard format == formatVersion else {
                return .failure(DocumentDecodingError(offset: 0, reason: "unknown document format \(format)"))
            }
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
            // Tombstones exactly where the clear's context covers: the canonical form.
            if let last = entries.last, case .context(let context) = last.value {
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

    /// A tag byte (0 removed, 1 present) then the value; the key says which kind it is.
    mutating func value(_ value: Entry.Value) {
        switch value {
        case .removed:
            byte(0)
            return
        default:
            byte(1)
        }
        switch value {
        case .position(let key):
            data(key)
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
        case .badgeReset(let count, let seen):
            signed(count)
            varint(UInt64(seen.count))
            for replica in seen.keys.sorted() {
                fixed64(replica.rawValue)
                signed(seen[replica]!)
            }
        case .badgeTotal(let total):
            signed(total)
        case .context(let vector):
            let replicas = vector.replicas
            varint(UInt64(replicas.count))
            for replica in replicas {
                fixed64(replica.rawValue)
                varint(vector[replica])
            }
        case .removed:
            break
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
        guard tag <= 1 else { throw fail("unknown value tag \(tag)") }
        if tag == 0 {
            guard key != .cleared else { throw fail("a clear cannot be removed") }
            return .removed
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
            let count = try signed()
            let seenCount = try self.count(max: Entry.maxReplicas, "badge reset replica count")
            var seen: [ReplicaID: Int64] = [:]
            seen.reserveCapacity(min(seenCount, remaining / 9))
            var previous: ReplicaID?
            for _ in 0..<seenCount {
                let replica = ReplicaID(rawValue: try fixed64())
                if let previous, !(previous < replica) { throw fail("badge reset replicas not in order") }
                previous = replica
                seen[replica] = try signed()
            }
            return .badgeReset(count: count, seen: seen)
        case .badgeIncrements:
            return .badgeTotal(try signed())
        case .cleared:
            let replicaCount = try self.count(max: Entry.maxReplicas, "context replica count")
            var vector = VersionVector()
            vector.storage.reserveCapacity(min(replicaCount, remaining / 9))
            var previous: ReplicaID?
            for _ in 0..<replicaCount {
                let replica = ReplicaID(rawValue: try fixed64())
                if let previous, !(previous < replica) { throw fail("context replicas not in order") }
                previous = replica
                let sequence = try varint()
                guard sequence > 0 else { throw fail("context sequence 0") }
                vector[replica] = sequence
            }
            return .context(vector)
        }
    }
}
