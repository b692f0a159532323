/// Appends the primitives of the binary formats: bytes, LEB128 varints, fixed 64-bit and strings.
/// Shared by the document encoding and, within the package, the sync message encoding.
package struct ByteWriter {
    /// The written bytes are `buffer[..<count]`; the rest is room already allocated, so a write
    /// is a store at `count`, not an `Array.append` with its checks and calls (a document is
    /// ~100 small writes).
    private var buffer: [UInt8] = []
    /// How many bytes have been written.
    package private(set) var count = 0

    package init() {}

    /// The bytes written so far; setting them starts over from `newValue`.
    package var bytes: [UInt8] {
        get { count == buffer.count ? buffer : Array(buffer[..<count]) }
        set {
            buffer = newValue
            count = newValue.count
        }
    }

    /// The bytes written so far, without a copy.
    package var written: ArraySlice<UInt8> { buffer[..<count] }

    /// The bytes written, the writer given up: the spare room is cut off, no copy made.
    package consuming func finish() -> [UInt8] {
        buffer.removeLast(buffer.count - count)
        return buffer
    }

    /// Starts over, keeping the room already allocated.
    package mutating func removeAll() {
        count = 0
    }

    /// Makes room for `capacity` bytes in all.
    package mutating func reserveCapacity(_ capacity: Int) {
        if capacity > buffer.count {
            buffer.append(contentsOf: repeatElement(0, count: capacity - buffer.count))
        }
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    private mutating func room(_ extra: Int) {
        if count + extra > buffer.count { reserveCapacity(Swift.max(count + extra, 2 * buffer.count, 64)) }
    }

    /// Appends `raw` as it is.
    package mutating func raw(_ raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress, raw.count > 0 else { return }
        room(raw.count)
        let at = count
        buffer.withUnsafeMutableBytes {
            ($0.baseAddress! + at).copyMemory(from: source, byteCount: raw.count)
        }
        count += raw.count
    }

    package mutating func byte(_ value: UInt8) {
        room(1)
        buffer[count] = value
        count += 1
    }

    /// Unsigned LEB128, minimal length.
    package mutating func varint(_ value: UInt64) {
        room(10)
        if value < 0x80 {
            buffer[count] = UInt8(value)
            count += 1
            return
        }
        var rest = value
        var at = count
        buffer.withUnsafeMutableBufferPointer { out in
            while rest >= 0x80 {
                out[at] = UInt8(truncatingIfNeeded: rest) | 0x80
                rest >>= 7
                at += 1
            }
            out[at] = UInt8(rest)
        }
        count = at + 1
    }

    /// Zigzag then LEB128.
    package mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Eight bytes, big-endian.
    package mutating func fixed64(_ value: UInt64) {
        room(8)
        let at = count
        buffer.withUnsafeMutableBytes {
            $0.storeBytes(of: value.bigEndian, toByteOffset: at, as: UInt64.self)
        }
        count += 8
    }

    /// Four bytes, big-endian.
    package mutating func fixed32(_ value: UInt32) {
        room(4)
        let at = count
        buffer.withUnsafeMutableBytes {
            $0.storeBytes(of: value.bigEndian, toByteOffset: at, as: UInt32.self)
        }
        count += 4
    }

    /// Length-prefixed UTF-8.
    package mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            raw(UnsafeRawBufferPointer(utf8))
        }
    }

    /// Length-prefixed bytes.
    package mutating func data(_ value: [UInt8]) {
        varint(UInt64(value.count))
        value.withUnsafeBytes { raw($0) }
    }
}
