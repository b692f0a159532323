/// Appends the primitives of the binary formats: bytes, LEB128 varints, fixed 64-bit and strings.
/// Shared by the document encoding and, within the package, the sync message encoding.
///
/// Noncopyable, so that it owns its buffer outright: a write is a store at `count`, with neither
/// the uniqueness and bounds checks of an array's subscript nor the zeros an array's room was
/// filled with first (a restore's reading thread: 35.3k → 34.1k instructions a document, callgrind).
package struct ByteWriter: ~Copyable {
    /// The written bytes are `base[..<count]`, the rest up to `capacity` is room; nil before the
    /// first write.
    private var base: UnsafeMutablePointer<UInt8>?
    private var capacity = 0
    /// How many bytes have been written.
    package private(set) var count = 0

    package init() {}

    deinit { base?.deallocate() }

    /// The bytes written so far; setting them starts over from `newValue`.
    package var bytes: [UInt8] {
        get { Array(UnsafeBufferPointer(start: base, count: count)) }
        set {
            count = 0
            room(newValue.count)
            newValue.withUnsafeBytes { raw($0) }
        }
    }

    /// Calls `body` with the bytes written so far, without a copy.
    package func withWritten<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The bytes written, the writer given up.
    package consuming func finish() -> [UInt8] {
        bytes
    }

    /// Starts over, keeping the room already allocated.
    package mutating func removeAll() {
        count = 0
    }

    /// Makes room for `capacity` bytes in all.
    package mutating func reserveCapacity(_ capacity: Int) {
        guard capacity > self.capacity else { return }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        if let base {
            grown.initialize(from: base, count: count)
            base.deallocate()
        }
        base = grown
        self.capacity = capacity
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    private mutating func room(_ extra: Int) {
        if count + extra > capacity { reserveCapacity(Swift.max(count + extra, 2 * capacity, 64)) }
    }

    /// Appends `raw` as it is.
    package mutating func raw(_ raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress, raw.count > 0 else { return }
        room(raw.count)
        UnsafeMutableRawPointer(base! + count).copyMemory(from: source, byteCount: raw.count)
        count += raw.count
    }

    package mutating func byte(_ value: UInt8) {
        room(1)
        base![count] = value
        count += 1
    }

    /// Unsigned LEB128, minimal length.
    package mutating func varint(_ value: UInt64) {
        room(10)
        let out = base!
        if value < 0x80 {
            out[count] = UInt8(value)
            count += 1
            return
        }
        var rest = value
        var at = count
        while rest >= 0x80 {
            out[at] = UInt8(truncatingIfNeeded: rest) | 0x80
            rest >>= 7
            at += 1
        }
        out[at] = UInt8(rest)
        count = at + 1
    }

    /// Zigzag then LEB128.
    package mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Eight bytes, big-endian.
    package mutating func fixed64(_ value: UInt64) {
        room(8)
        UnsafeMutableRawPointer(base! + count).storeBytes(of: value.bigEndian, as: UInt64.self)
        count += 8
    }

    /// Four bytes, big-endian.
    package mutating func fixed32(_ value: UInt32) {
        room(4)
        UnsafeMutableRawPointer(base! + count).storeBytes(of: value.bigEndian, as: UInt32.self)
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
