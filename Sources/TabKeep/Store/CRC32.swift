/// CRC-32 as zlib, PNG and gzip compute it (IEEE 802.3, reflected polynomial 0xEDB88320).
///
/// Used for the trailers of sync messages and dumps. Contiguous bytes go eight at a time
/// (slicing-by-8), which matters for gigabyte dumps.
///
/// ```swift
/// CRC32.checksum(Array("123456789".utf8))   // 0xCBF43926
///
/// var crc = CRC32()
/// bytes.withUnsafeBytes { crc.update($0) }
/// print(crc.value)
/// ```
public struct CRC32: Hashable, Sendable {
    /// The running register, pre- and post-inverted as the standard requires.
    private var register: UInt32 = 0xFFFF_FFFF

    /// A checksum of no bytes yet.
    public init() {}

    /// The checksum of every byte given so far.
    public var value: UInt32 { register ^ 0xFFFF_FFFF }

    /// Adds `bytes` to the checksum.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        update(bytes.bindMemory(to: UInt8.self))
    }

    /// Adds `bytes` to the checksum, from any sequence of bytes.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update($0) }
        guard done == nil else { return }
        var crc = register
        for byte in bytes {
            crc = CRC32.tables[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        register = crc
    }

    /// Adds one byte.
    mutating func update(byte: UInt8) {
        register = CRC32.tables[Int((register ^ UInt32(byte)) & 0xFF)] ^ (register >> 8)
    }

    /// Adds `bytes[start...]`.
    mutating func update(_ bytes: [UInt8], from start: Int) {
        bytes.withUnsafeBufferPointer { update(UnsafeBufferPointer(rebasing: $0[start...])) }
    }

    /// The checksum of `bytes`.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// Slicing-by-8: eight bytes per step, then the rest one at a time.
    private mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        let count = bytes.count
        var crc = register
        Self.tables.withUnsafeBufferPointer { table in
            var index = 0
            while count - index >= 8 {
                let low =
                    crc
                    ^ (UInt32(base[index]) | UInt32(base[index + 1]) << 8 | UInt32(base[index + 2]) << 16
                        | UInt32(base[index + 3]) << 24)
                let high =
                    UInt32(base[index + 4]) | UInt32(base[index + 5]) << 8 | UInt32(base[index + 6]) << 16
                    | UInt32(base[index + 7]) << 24
                crc =
                    table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int(low >> 8 & 0xFF)]
                    ^ table[5 * 256 + Int(low >> 16 & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int(high >> 8 & 0xFF)]
                    ^ table[256 + Int(high >> 16 & 0xFF)] ^ table[Int(high >> 24)]
                index += 8
            }
            while index < count {
                crc = table[Int((crc ^ UInt32(base[index])) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
        }
        register = crc
    }

    /// Eight tables of 256: the first is the classic one (the register after shifting a byte
    /// through eight times); table k advances table k−1 by one more byte.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 {
                value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
            }
            tables[index] = value
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()
}
