/// CRC-32 as zlib, PNG and gzip compute it (IEEE 802.3, reflected polynomial 0xEDB88320).
///
/// Used for the trailers of sync messages and dumps.
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
        var crc = register
        for byte in bytes {
            crc = CRC32.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        register = crc
    }

    /// Adds `bytes` to the checksum, from any sequence of bytes.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = register
        for byte in bytes {
            crc = CRC32.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        register = crc
    }

    /// The checksum of `bytes`.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// One entry per byte value: the register after shifting that byte through eight times.
    private static let table: [UInt32] = (0...255).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }
}
