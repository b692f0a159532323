extension TabBarDocument {
    /// The format byte of documents that use only the first version's values.
    static let formatVersion1: UInt8 = 1
    /// The format byte of documents holding a ``TabPlace`` or a clear's badge totals (value tag 2).
    /// Writing 1 whenever possible keeps documents that need nothing new readable by older code.
    static let formatVersion2: UInt8 = 2

    /// Compact, canonical binary: the same document always encodes to the same bytes.
    ///
    /// Format byte, entry count, then each entry in key order: kind, key, stamp, origin, dot, value.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.reserveCapacity(16 + storage.count * 48)
        let usesVersion2 = storage.contains { ByteWriter.tag(of: $0.value) == .secondForm }
        writer.byte(usesVersion2 ? TabBarDocument.formatVersion2 : TabBarDocument.formatVersion1)
        writer.varint(UInt64(storage.count))
        for entry in storage {
            writer.entry(entry)
        }
        return writer.finish()
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
            guard format == formatVersion1 || format == formatVersion2 else {
                return .failure(
                    DocumentDecodingError(offset: 0, reason: DocumentRefusal.unknownFormat(format)))
            }
            reader.allowsVersion2Values = format == formatVersion2
            reader.sawVersion2Value = false
            let count = try reader.count(max: maxEntries, DocumentRefusal.entryCount)
            var entries: [Entry] = []
            // Every entry takes at least 20 bytes: never reserve more than the input can hold.
            entries.reserveCapacity(min(count, reader.remaining / 20))
            var kindCount = 0
            for _ in 0..<count {
                let start = reader.offset
                let entry = try reader.entry()
                if let previous = entries.last {
                    guard previous.key < entry.key else {
                        throw DocumentDecodingError(
                            offset: start, reason: DocumentRefusal.notInCanonicalOrder)
                    }
                    kindCount = previous.key.kind == entry.key.kind ? kindCount + 1 : 1
                } else {
                    kindCount = 1
                }
                guard kindCount <= entry.key.kind.maxCount else {
                    throw DocumentDecodingError(offset: start, reason: DocumentRefusal.tooManyOfOneKind)
                }
                entries.append(entry)
            }
            guard reader.isAtEnd else { throw reader.fail(DocumentRefusal.trailingBytes) }
            if format == formatVersion2 && !reader.sawVersion2Value {
                return .failure(
                    DocumentDecodingError(
                        offset: 0, reason: DocumentRefusal.formatTwoNotNeeded))
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
                    DocumentDecodingError(offset: buffer.count, reason: DocumentRefusal.removedWithoutClear))
            }
            return .success(entries)
        } catch {
            return .failure(error)
        }
    }
}

extension ByteWriter {
    mutating func entry(_ entry: Entry) {
        byte(entry.key.kind.rawValue)
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

    /// The tag of a value: removed, present, or present in a form of document format 2.
    static func tag(of value: Entry.Value) -> ValueTag {
        switch value {
        case .removed: .removed
        case .place: .secondForm
        case .context(_, let badges): badges.isEmpty ? .present : .secondForm
        case .badgeReset(_, _, let sequences): sequences.isEmpty ? .present : .secondForm
        default: .present
        }
    }

    /// A tag byte (see ``tag(of:)``) then the value; the key says which kind it is.
    mutating func value(_ value: Entry.Value) {
        byte(ByteWriter.tag(of: value).rawValue)
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
        guard let kind = EntryKind(rawValue: code) else {
            offset = start
            throw fail(DocumentRefusal.unknownKind(code))
        }
        let key: Entry.Key
        switch kind {
        case .position: key = .position(try tab())
        case .customizable: key = .customizable(try tab())
        case .hidden: key = .hidden(try tab())
        case .selection: key = .selection
        case .badgeText: key = .badgeText(try tab())
        case .badgeReset: key = .badgeReset(try tab())
        case .badgeIncrements: key = .badgeIncrements(try tab(), ReplicaID(rawValue: try fixed64()))
        case .cleared: key = .cleared
        }
        let stamp = Stamp(rawValue: try varint())
        let origin = ReplicaID(rawValue: try fixed64())
        let dotReplica = ReplicaID(rawValue: try fixed64())
        let sequenceStart = offset
        let sequence = try varint()
        guard sequence > 0 else {
            offset = sequenceStart
            throw fail(DocumentRefusal.dotSequenceZero)
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
        let tagByte = try byte()
        guard let tag = ValueTag(rawValue: tagByte), tag != .secondForm || allowsVersion2Values else {
            throw fail(DocumentRefusal.unknownValueTag(tagByte))
        }
        if tag == .removed {
            guard key != .cleared else { throw fail(DocumentRefusal.clearRemoved) }
            return .removed
        }
        if tag == .secondForm {
            sawVersion2Value = true
            switch key {
            case .position:
                let after = try optionalTab()
                let next = try optionalTab()
                let start = offset
                let bytes = try slice(max: TabPlace.maxKeyLength, DocumentRefusal.positionKey)
                guard let last = bytes.last, last != 0 else {
                    offset = start
                    throw fail(DocumentRefusal.badPositionKey)
                }
                return .place(TabPlace(after: after, next: next, key: Array(bytes)))
            case .cleared:
                let vector = try contextVector()
                let markCount = try self.count(max: Entry.maxBadgeMarks, DocumentRefusal.badgeTotalCount)
                guard markCount > 0 else {
                    throw fail(DocumentRefusal.badgeTotalsEmpty)
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
                        throw fail(DocumentRefusal.badgeTotalsNotInOrder)
                    }
                    marks.append(mark)
                }
                return .context(vector, badges: marks)
            case .badgeReset:
                return try badgeReset(sequenced: true)
            default:
                throw fail(DocumentRefusal.noSecondForm)
            }
        }
        switch key {
        case .position:
            let start = offset
            let bytes = try slice(max: FractionalKey.maxLength, DocumentRefusal.positionKey)
            guard let last = bytes.last, last != 0 else {
                offset = start
                throw fail(DocumentRefusal.badPositionKey)
            }
            return .position(Array(bytes))
        case .customizable, .hidden:
            let flag = try byte()
            guard flag <= 1 else { throw fail(DocumentRefusal.flagNotBoolean(flag)) }
            return .flag(flag == 1)
        case .selection:
            switch SelectionCode(rawValue: try byte()) {
            case .noTab: return .selection(.none)
            case .more: return .selection(.more)
            case .tab: return .selection(.tab(try tab()))
            case nil: throw fail(DocumentRefusal.unknownSelection)
            }
        case .badgeText:
            switch BadgeTextCode(rawValue: try byte()) {
            case .noText: return .text(nil)
            case .text: return .text(try string(max: Entry.maxBadgeTextBytes, DocumentRefusal.badgeText))
            case nil: throw fail(DocumentRefusal.unknownBadgeText)
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
        let seenCount = try self.count(max: Entry.maxReplicas, DocumentRefusal.badgeResetReplicaCount)
        if sequenced && seenCount == 0 { throw fail(DocumentRefusal.badgeResetWithoutTotals) }
        var seen: [ReplicaID: Int64] = [:]
        seen.reserveCapacity(min(seenCount, remaining / 9))
        var sequences: [ReplicaID: UInt64] = [:]
        var previous: ReplicaID?
        for _ in 0..<seenCount {
            let replica = ReplicaID(rawValue: try fixed64())
            if let previous, !(previous < replica) {
                throw fail(DocumentRefusal.badgeResetReplicasNotInOrder)
            }
            previous = replica
            seen[replica] = try signed()
            if sequenced {
                let sequence = try varint()
                guard sequence > 0 else { throw fail(DocumentRefusal.badgeResetSequenceZero) }
                sequences[replica] = sequence
            }
        }
        return .badgeReset(count: count, seen: seen, sequences: sequences)
    }

    mutating func contextVector() throws(DocumentDecodingError) -> VersionVector {
        let replicaCount = try self.count(max: Entry.maxReplicas, DocumentRefusal.contextReplicaCount)
        var vector = VersionVector()
        vector.reserveCapacity(min(replicaCount, remaining / 9))
        var previous: ReplicaID?
        for _ in 0..<replicaCount {
            let replica = ReplicaID(rawValue: try fixed64())
            if let previous, !(previous < replica) { throw fail(DocumentRefusal.contextReplicasNotInOrder) }
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
        default: throw fail(DocumentRefusal.optionalTabMarker)
        }
    }
}
