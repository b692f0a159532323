internal import CFoldedCRC
internal import CZlib

/// CRC-32 as zlib, PNG and gzip compute it (IEEE 802.3, reflected polynomial 0xEDB88320): zlib's
/// own `crc32`, for the trailers of sync messages and dumps.
///
/// ```swift
/// CRC32.checksum(Array("123456789".utf8))   // 0xCBF43926
///
/// var crc = CRC32()
/// bytes.withUnsafeBytes { crc.update($0) }
/// print(crc.value)
/// ```
///
/// `package`, not public: the dump and sync formats use it, apps never need it.
package struct CRC32: Hashable, Sendable {
    /// The checksum of every byte given so far (zlib's running value: no inversion to undo).
    package private(set) var value: UInt32 = 0

    /// A checksum of no bytes yet.
    package init() {}

    /// Adds `bytes` to the checksum: from 64 bytes on, all but the last few folded sixteen at a
    /// time with carry-less multiplication where the processor has it (x86-64; about a tenth of
    /// zlib's instructions a byte), the rest by zlib's `crc32`. ``updateByZlib(_:)`` is its twin.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        var folded = (UInt64(0), UInt64(0))
        let done = withUnsafeMutableBytes(of: &folded) { out in
            tabkeep_crc32_fold(
                ~value, base.assumingMemoryBound(to: UInt8.self), bytes.count,
                out.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        if done > 0 {
            // zlib's value over the folded prefix is zlib's over the 16 bytes from a zero register.
            value = 0xFFFF_FFFF
            withUnsafeBytes(of: &folded) { updateByZlib($0) }
        }
        updateByZlib(UnsafeRawBufferPointer(rebasing: bytes[done...]))
    }

    /// Whether ``update(_:)`` folds on this processor (else it is zlib's `crc32` throughout).
    package static var folds: Bool {
        var out = (UInt64(0), UInt64(0))
        let block = [UInt8](repeating: 0, count: 64)
        return withUnsafeMutableBytes(of: &out) { out in
            tabkeep_crc32_fold(0, block, 64, out.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 64
        }
    }

    /// ``update(_:)`` by zlib's `crc32` alone.
    package mutating func updateByZlib(_ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        var crc = UInt(value)
        while remaining > 0 {
            let chunk = min(remaining, Int(UInt32.max))  // zlib takes a 32-bit length
            crc = crc32(crc, base.assumingMemoryBound(to: UInt8.self), UInt32(chunk))
            base += chunk
            remaining -= chunk
        }
        value = UInt32(truncatingIfNeeded: crc)
    }

    /// Adds `bytes` to the checksum, from any sequence of bytes.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        guard done == nil else { return }
        let copied = Array(bytes)
        copied.withUnsafeBytes { update($0) }
    }

    /// Adds bytes of which `other` is the checksum and `count` the length, without reading
    /// them again. Wraps zlib's `crc32_combine`.
    package mutating func append(_ other: CRC32, count: Int) {
        value = UInt32(truncatingIfNeeded: crc32_combine(UInt(value), UInt(other.value), Int(count)))
    }

    /// Adds one byte.
    package mutating func update(byte: UInt8) {
        withUnsafeBytes(of: byte) { update($0) }
    }

    /// Adds `bytes[start...]`.
    package mutating func update(_ bytes: [UInt8], from start: Int) {
        bytes.withUnsafeBytes { update(UnsafeRawBufferPointer(rebasing: $0[start...])) }
    }

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
