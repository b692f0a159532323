/// The dump's CRC-32 — the same checksum as ``CRC32`` (IEEE 802.3, reflected, polynomial
/// 0xEDB88320) — eight bytes per step (slicing-by-8) instead of one.
///
/// Every byte of a dump before its trailer goes through it, on writing and twice on restoring;
/// the byte-at-a-time table walk was the largest single cost of reading once the lines no longer
/// went through the generic JSON tree.
struct DumpCRC32: Sendable {
    private var register: UInt32 = 0xFFFF_FFFF

    /// The checksum of every byte given so far.
    var value: UInt32 { register ^ 0xFFFF_FFFF }

    /// Eight tables of 256: table k maps a byte to its effect on the register k bytes later.
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

    /// Adds `bytes` to the checksum.
    mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
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

    /// Adds the bytes of `bytes` from `start` on.
    mutating func update(_ bytes: [UInt8], from start: Int = 0) {
        bytes.withUnsafeBufferPointer { update(UnsafeBufferPointer(rebasing: $0[start...])) }
    }

    /// Adds one byte.
    mutating func update(byte: UInt8) {
        withUnsafePointer(to: byte) { update(UnsafeBufferPointer(start: $0, count: 1)) }
    }
}
