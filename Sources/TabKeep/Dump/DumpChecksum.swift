/// The IEEE CRC-32 (the one of zlib, PNG and gzip) of a dump's bytes, table-driven.
///
/// Internal to the dump format; the store's own `CRC32` replaces it when both land on main.
struct DumpChecksum: Hashable, Sendable {
    /// The running register, already inverted.
    private var register: UInt32 = 0xFFFF_FFFF

    /// The checksum of no bytes.
    init() {}

    /// Folds `bytes` in.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = register
        for byte in bytes {
            crc = Self.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        register = crc
    }

    /// The checksum of every byte folded in so far.
    var value: UInt32 { register ^ 0xFFFF_FFFF }

    /// The 256 remainders of the reflected polynomial 0xEDB88320.
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1
        }
        return crc
    }
}
