import TabKeep

/// Reads the pieces of a sync message, checking every bound; every failure names its offset.
///
/// What each piece is (`what`) is built only when it fails: a message of 100k sections built
/// half a million description strings it never used.
struct MessageReader {
    private let bytes: [UInt8]
    private(set) var offset: Int
    private let end: Int

    /// Reads `bytes[start..<end]`.
    init(_ bytes: [UInt8], start: Int, end: Int) {
        self.bytes = bytes
        self.offset = start
        self.end = end
    }

    var remaining: Int { end - offset }
    var isAtEnd: Bool { offset == end }

    func fail(_ reason: String, at position: Int? = nil) -> SyncError {
        .malformed(offset: position ?? offset, reason: reason)
    }

    mutating func byte(_ what: @autoclosure () -> String) throws(SyncError) -> UInt8 {
        guard offset < end else { throw fail("cut short reading \(what())") }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A LEB128 varint of at most ten bytes, in its shortest form: `VarintWord` when ten bytes are
    /// left, else the byte loop.
    mutating func varint(_ what: @autoclosure () -> String) throws(SyncError) -> UInt64 {
        if end - offset >= 10 {
            let start = offset
            let decoded = bytes.withUnsafeBytes { raw in VarintWord.decode(at: raw.baseAddress! + start) }
            if let (value, length) = decoded {
                offset += length
                return value
            }
        }
        return try varintByBytes(what())
    }

    /// A varint read a byte at a time: the slow twin of `VarintWord`, which names every refusal.
    mutating func varintByBytes(_ what: @autoclosure () -> String) throws(SyncError) -> UInt64 {
        let start = offset
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try self.byte(what())
            let payload = UInt64(byte & 0x7F)
            if shift == 63 && payload > 1 { throw fail("\(what()) overflows 64 bits", at: start) }
            value |= payload << shift
            if byte & 0x80 == 0 {
                if byte == 0 && shift > 0 { throw fail("\(what()) is not in its shortest form", at: start) }
                return value
            }
            shift += 7
            if shift > 63 { throw fail("\(what()) overflows 64 bits", at: start) }
        }
    }

    /// A count of at most `max` items, each at least `minimumSize` bytes: a count the rest of the
    /// message cannot hold is refused before anything is allocated for it.
    mutating func count(_ what: @autoclosure () -> String, max: Int, minimumSize: Int) throws(SyncError)
        -> Int
    {
        let start = offset
        let value = try varint(what())
        guard value <= UInt64(max) else {
            throw fail("\(what()) \(value) is more than the limit of \(max)", at: start)
        }
        let count = Int(value)
        guard count <= remaining / Swift.max(1, minimumSize) else {
            throw fail("\(what()) \(count) cannot fit in the \(remaining) bytes left", at: start)
        }
        return count
    }

    mutating func bigEndian64(_ what: @autoclosure () -> String) throws(SyncError) -> UInt64 {
        guard remaining >= 8 else { throw fail("cut short reading \(what())") }
        var value: UInt64 = 0
        for index in offset..<offset + 8 { value = value << 8 | UInt64(bytes[index]) }
        offset += 8
        return value
    }

    /// A length-prefixed byte string of at most `max` bytes, as a range of the input.
    mutating func lengthPrefixed(_ what: @autoclosure () -> String, max: Int) throws(SyncError) -> ArraySlice<
        UInt8
    > {
        let start = offset
        let length = try varint("length of \(what())")
        guard length <= UInt64(max) else {
            throw fail("\(what()) is \(length) bytes, more than the limit of \(max)", at: start)
        }
        guard length <= UInt64(remaining) else {
            throw fail("\(what()) is \(length) bytes but only \(remaining) are left", at: start)
        }
        defer { offset += Int(length) }
        return bytes[offset..<offset + Int(length)]
    }
}
