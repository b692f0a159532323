/// Reads the primitives of the binary formats from a buffer, checking every bound.
///
/// Only used inside `withUnsafeBufferPointer`: the buffer never escapes.
package struct ByteReader {
    let buffer: UnsafeBufferPointer<UInt8>
    var offset = 0
    /// Whether values of document format 2 (tag 2) may appear, and whether one did.
    var allowsVersion2Values = false
    var sawVersion2Value = false

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    var remaining: Int { buffer.count - offset }
    var isAtEnd: Bool { offset == buffer.count }

    func fail(_ reason: String) -> DocumentDecodingError {
        DocumentDecodingError(offset: offset, reason: reason)
    }

    @inline(__always)
    mutating func byte() throws(DocumentDecodingError) -> UInt8 {
        guard offset < buffer.count else { throw fail("unexpected end") }
        defer { offset += 1 }
        return buffer[offset]
    }

    /// Unsigned LEB128; rejects overlong encodings and overflow so every value has one encoding.
    @inline(__always)
    mutating func varint() throws(DocumentDecodingError) -> UInt64 {
        // One byte is the common case (kinds, lengths, small sequences): inline, no loop.
        if offset < buffer.count, buffer[offset] < 0x80 {
            defer { offset += 1 }
            return UInt64(buffer[offset])
        }
        return try longVarint()
    }

    /// ``varint()`` past its first byte's fast case: ``VarintWord`` when ten bytes are left, else
    /// the byte loop.
    @inline(never)
    private mutating func longVarint() throws(DocumentDecodingError) -> UInt64 {
        if buffer.count - offset >= 10 {
            if let (value, length) = VarintWord.decode(at: UnsafeRawPointer(buffer.baseAddress! + offset)) {
                offset += length
                return value
            }
        }
        return try varintByBytes()
    }

    /// A varint read a byte at a time: the slow twin of ``VarintWord``, and the reader of every
    /// varint the word leaves to it (overlong, overflowing, near the buffer's end).
    package mutating func varintByBytes() throws(DocumentDecodingError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        let start = offset
        while true {
            guard offset < buffer.count else { throw fail("unexpected end in varint") }
            let byte = buffer[offset]
            offset += 1
            let payload = UInt64(byte & 0x7F)
            if shift == 63 && payload > 1 {
                offset = start
                throw fail("varint overflows 64 bits")
            }
            result |= payload << shift
            if byte & 0x80 == 0 {
                if byte == 0 && offset - start > 1 {
                    offset = start
                    throw fail("overlong varint")
                }
                return result
            }
            shift += 7
            if shift > 63 {
                offset = start
                throw fail("varint longer than 10 bytes")
            }
        }
    }

    /// A varint that must not exceed `limit`.
    mutating func count(max limit: Int, _ what: @autoclosure () -> String) throws(DocumentDecodingError)
        -> Int
    {
        let start = offset
        let value = try varint()
        guard value <= UInt64(limit) else {
            offset = start
            throw fail("\(what()) \(value) exceeds \(limit)")
        }
        return Int(value)
    }

    /// Zigzag LEB128.
    mutating func signed() throws(DocumentDecodingError) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    @inline(__always)
    mutating func fixed64() throws(DocumentDecodingError) -> UInt64 {
        guard remaining >= 8 else { throw fail("unexpected end in 64-bit value") }
        let value = UnsafeRawPointer(buffer.baseAddress! + offset).loadUnaligned(as: UInt64.self)
        offset += 8
        return UInt64(bigEndian: value)
    }

    /// ``slice(max:_:)`` for the usual case — a one-byte length within `limit` and the buffer —
    /// inline; nil, reading nothing, otherwise (the caller then takes ``slice(max:_:)``, which
    /// names the problem).
    @inline(__always)
    mutating func shortSlice(max limit: Int) -> UnsafeBufferPointer<UInt8>? {
        guard offset < buffer.count else { return nil }
        let length = Int(buffer[offset])
        guard length < 0x80, length <= limit, length < buffer.count - offset else { return nil }
        let start = offset + 1
        offset = start + length
        return UnsafeBufferPointer(start: buffer.baseAddress! + start, count: length)
    }

    /// A length-prefixed run of bytes (1…limit long unless `allowEmpty`), as a slice of the buffer.
    mutating func slice(max limit: Int, _ what: @autoclosure () -> String) throws(DocumentDecodingError)
        -> UnsafeBufferPointer<
            UInt8
        >
    {
        let length = try count(max: limit, "\(what()) length")
        guard length <= remaining else { throw fail("\(what()) runs past the end") }
        let result = UnsafeBufferPointer(rebasing: buffer[offset..<offset + length])
        offset += length
        return result
    }

    /// A length-prefixed UTF-8 string of at most `limit` bytes.
    mutating func string(max limit: Int, _ what: @autoclosure () -> String) throws(DocumentDecodingError)
        -> String
    {
        let start = offset
        let bytes = try slice(max: limit, what())
        guard let text = Self.text(bytes) else {
            offset = start
            throw fail(DocumentRefusal.notUTF8(what()))
        }
        return text
    }

    /// The string of `bytes` if they are valid UTF-8, else nil.
    ///
    /// `String(validating:as:)` is not specialized in the standard library and looks up generic
    /// metadata on every call; `String(decoding:as:)` is, and it repairs invalid input, so the
    /// bytes are valid exactly when the repaired string holds them unchanged.
    @inline(__always)
    package static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        var ascii = true
        for byte in bytes where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii { return text }
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    /// A length-prefixed identifier, checked by the identifier rules.
    mutating func identifier(max limit: Int, _ what: @autoclosure () -> String) throws(DocumentDecodingError)
        -> String
    {
        let start = offset
        let bytes = try slice(max: limit, what())
        if let problem = IdentifierRules.problem(in: bytes, maxBytes: limit) {
            offset = start
            throw fail(DocumentRefusal.breaksIdentifierRule(what(), problem))
        }
        guard let text = Self.text(bytes) else {
            offset = start
            throw fail(DocumentRefusal.notUTF8(what()))
        }
        return text
    }

    mutating func tab() throws(DocumentDecodingError) -> TabID {
        TabID(unchecked: try identifier(max: TabID.maxBytes, DocumentRefusal.tabID))
    }
}
