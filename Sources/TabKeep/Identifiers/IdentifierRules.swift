/// The shared rules of string identifiers: a UTF-8 length range, no NUL, no control characters.
package enum IdentifierRules {
    /// Checks `value` and throws an error naming `field` and the rule it broke.
    static func validate(_ value: String, field: String, maxBytes: Int) throws(IdentifierError) {
        var contiguous = value
        contiguous.makeContiguousUTF8()
        let found = contiguous.utf8.withContiguousStorageIfAvailable { problem(in: $0, maxBytes: maxBytes) }
        if let found = found ?? nil {
            throw IdentifierError(field: field, value: value, rule: found)
        }
    }

    /// The rule that `bytes` (valid UTF-8) breaks, or nil.
    package static func problem(in bytes: UnsafeBufferPointer<UInt8>, maxBytes: Int) -> String? {
        if bytes.isEmpty || bytes.count > maxBytes {
            return "must be 1–\(maxBytes) UTF-8 bytes"
        }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0 {
                return "must not contain NUL"
            }
            if byte < 0x20 || byte == 0x7F {
                return "must not contain control characters"
            }
            // U+0080–U+009F (C1 controls) are 0xC2 0x80–0x9F in UTF-8.
            if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) {
                return "must not contain control characters"
            }
            index += 1
        }
        return nil
    }

    /// Byte-wise equality: identifiers are compared as stored, never by Unicode equivalence.
    @inline(__always)
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        // Two strings with the same representation (one small string's inline bytes, or one
        // storage object) hold the same bytes: the common case of an id compared with a copy
        // of itself (a bar name, a catalog's tab) takes no look at the bytes.
        if sameRepresentation(lhs, rhs) { return true }
        if lhs.utf8.count != rhs.utf8.count { return false }
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in compare(left, right) == 0 }
        }
        if let fast, let fast { return fast }
        return lhs.utf8.elementsEqual(rhs.utf8)
    }

    /// Whether two strings are the same value bit for bit: then they are equal byte for byte
    /// (the converse need not hold, so only a `true` answers anything).
    @inline(__always)
    static func sameRepresentation(_ lhs: String, _ rhs: String) -> Bool {
        withUnsafeBytes(of: lhs) { left in
            withUnsafeBytes(of: rhs) { right in
                guard MemoryLayout<String>.size == 16 else { return left.elementsEqual(right) }
                return left.load(as: UInt64.self) == right.load(as: UInt64.self)
                    && left.load(fromByteOffset: 8, as: UInt64.self)
                        == right.load(fromByteOffset: 8, as: UInt64.self)
            }
        }
    }

    /// Byte-wise order, the order LMDB sorts keys in.
    @inline(__always)
    static func less(_ lhs: String, _ rhs: String) -> Bool {
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in compare(left, right) < 0 }
        }
        if let fast, let fast { return fast }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    /// Three-way byte-wise comparison: below zero when `lhs` sorts first, zero when equal.
    @inline(__always)
    static func compare(_ lhs: String, _ rhs: String) -> Int {
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in compare(left, right) }
        }
        if let fast, let fast { return fast }
        if lhs.utf8.elementsEqual(rhs.utf8) { return 0 }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8) ? -1 : 1
    }

    /// Three-way byte-wise comparison of two UTF-8 buffers (shorter prefix first), without
    /// going through the generic sequence algorithms.
    @inline(__always)
    static func compare(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(lhs.count, rhs.count)
        var index = 0
        while index < common {
            let left = lhs[index]
            let right = rhs[index]
            if left != right { return left < right ? -1 : 1 }
            index += 1
        }
        return lhs.count == rhs.count ? 0 : (lhs.count < rhs.count ? -1 : 1)
    }

    /// An identifier's first eight bytes as one big-endian number, NUL-padded: ``compare(_:key:_:key:)``
    /// orders two identifiers by these numbers and looks at their bytes only when the first eight
    /// agree and both are longer.
    @inline(__always)
    static func prefixKey(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        if bytes.count >= 8 {
            return UInt64(bigEndian: UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(as: UInt64.self))
        }
        var key: UInt64 = 0
        for index in 0..<bytes.count { key |= UInt64(bytes[index]) << UInt64(56 - 8 * index) }
        return key
    }

    /// ``compare(_:_:)-(UnsafeBufferPointer<UInt8>,_)`` of two identifiers with their ``prefixKey(_:)``s:
    /// the same order for any bytes without NUL (which no identifier holds), in a comparison or
    /// two for ids of up to eight bytes. `IdentifierPrefixDifferentialPropertyTests` holds it to
    /// the byte loop.
    @inline(__always)
    static func compare(
        _ lhs: UnsafeBufferPointer<UInt8>, key lhsKey: UInt64, _ rhs: UnsafeBufferPointer<UInt8>,
        key rhsKey: UInt64
    ) -> Int {
        if lhsKey != rhsKey { return lhsKey < rhsKey ? -1 : 1 }
        // The first eight bytes agree (or both end, NUL-padded, at the same place).
        if lhs.count <= 8 || rhs.count <= 8 {
            return lhs.count == rhs.count ? 0 : (lhs.count < rhs.count ? -1 : 1)
        }
        return compare(
            UnsafeBufferPointer(rebasing: lhs[8...]), UnsafeBufferPointer(rebasing: rhs[8...]))
    }

    /// Hashes the UTF-8 bytes, consistent with `equal`.
    @inline(__always)
    static func hash(_ value: String, into hasher: inout Hasher) {
        let done: Void? = value.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if done == nil {
            for byte in value.utf8 {
                hasher.combine(byte)
            }
        }
        hasher.combine(UInt8(0xFF))  // terminator: 0xFF never occurs in UTF-8
    }
}
