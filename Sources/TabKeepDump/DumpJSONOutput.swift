import TabKeep

/// Hand-written JSON for dump lines: fast, and byte-for-byte deterministic.
///
/// The bytes live in a buffer of this type's own rather than an array: a document line is about
/// 200 small appends, and an array's `append(contentsOf:)` and uniqueness check per append were
/// a fifth of a dump's transcoding (perf, 100k profiles). Copies share the buffer until one
/// writes, as an array's do; the check is ``makeUnique()``, which every writer's entry point
/// calls once before writing (``DumpWriter``'s, ``DumpTranscoder/appendEntries(of:to:)``), and
/// debug builds check it on every write.
// @unchecked: the buffer is written only through the one output that holds its sole owner
// (`makeUnique()`), and only read through the others, as an array's storage is.
struct DumpJSONOutput: @unchecked Sendable {
    /// Owns the buffer: freed with the last output that holds it.
    private final class Owner {
        let base: UnsafeMutablePointer<UInt8>
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(capacity: capacity)
        }

        deinit { base.deallocate() }
    }

    private var owner: Owner
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// How many bytes are written.
    private(set) var count = 0

    /// An empty output.
    init(capacity: Int = 4096) {
        owner = Owner(capacity: max(capacity, 16))
        base = owner.base
        self.capacity = owner.capacity
    }

    /// The bytes written so far.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// Calls `body` with the bytes from `start` on.
    func withBytes<R>(from start: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base + start, count: count - start))
    }

    /// Gives this output a buffer of its own if a copy shares it: call before writing.
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&owner) { move(toCapacity: capacity) }
    }

    /// ``makeUnique()``, then the count: where the line a writer starts begins.
    mutating func begin() -> Int {
        makeUnique()
        return count
    }

    /// Hands over the bytes written and empties the output (keeping its buffer).
    mutating func takeBytes() -> [UInt8] {
        defer { count = 0 }
        return bytes
    }

    /// Forgets the bytes from `start` on.
    mutating func truncate(to start: Int) {
        precondition((0...count).contains(start), "truncating past the end")
        count = start
    }

    /// Makes room for `extra` more bytes without growing again.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        assert(isKnownUniquelyReferenced(&owner), "a write without makeUnique()")
        if capacity - count < extra { move(toCapacity: max(capacity * 2, count + extra)) }
    }

    /// Copies the bytes into a new buffer of `newCapacity`.
    @inline(never)
    private mutating func move(toCapacity newCapacity: Int) {
        let new = Owner(capacity: newCapacity)
        new.base.update(from: base, count: count)
        owner = new
        base = new.base
        capacity = newCapacity
    }

    /// Appends one byte.
    @inline(__always)
    mutating func append(_ byte: UInt8) {
        assert(isKnownUniquelyReferenced(&owner), "a write without makeUnique()")
        if count == capacity { reserve(1) }
        base[count] = byte
        count += 1
    }

    /// Appends `bytes`.
    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        assert(isKnownUniquelyReferenced(&owner), "a write without makeUnique()")
        if capacity - count < bytes.count { reserve(bytes.count) }
        if let source = bytes.baseAddress {
            UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
    }

    /// Appends `bytes`.
    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(UnsafeRawBufferPointer(bytes))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends ASCII text as it is (punctuation and names known to need no escaping).
    @inline(__always)
    mutating func raw(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `"name":`.
    mutating func name(_ text: StaticString) {
        append(UInt8(ascii: "\""))
        raw(text)
        append(UInt8(ascii: "\""))
        append(UInt8(ascii: ":"))
    }

    /// Appends a JSON string: quotes, backslashes and control characters escaped, other UTF-8 as is.
    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { string(bytes: $0) }
    }

    /// Appends the UTF-8 `text` as a JSON string, escaped as ``string(_:)`` escapes a String.
    mutating func string(bytes text: UnsafeBufferPointer<UInt8>) {
        append(UInt8(ascii: "\""))
        // Most strings need no escape: append their bytes in one go.
        if !text.contains(where: {
            $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
        }) {
            append(text)
            append(UInt8(ascii: "\""))
            return
        }
        for byte in text {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0..<0x20, 0x7F:
                raw("\\u00")
                append(Self.hexDigits[Int(byte >> 4)])
                append(Self.hexDigits[Int(byte & 0x0F)])
            default: append(byte)
            }
        }
        append(UInt8(ascii: "\""))
    }

    /// Appends a replica id as a JSON string of 16 lowercase hex digits: the bytes of
    /// `string(replica.description)`, without making the String.
    mutating func replica(_ replica: ReplicaID) {
        // Written in place, a byte's two digits at a time: this runs three times per entry; an
        // append per digit was a twentieth of a dump, and a branch per digit 7 % (perf).
        reserve(18)
        let text = base + count
        let table = Self.hexPairs
        text[0] = UInt8(ascii: "\"")
        var value = replica.rawValue
        for index in stride(from: 15, through: 1, by: -2) {
            let pair = Int(truncatingIfNeeded: value & 0xFF) &* 2
            text[index] = table[pair]
            text[index + 1] = table[pair + 1]
            value >>= 8
        }
        text[17] = UInt8(ascii: "\"")
        count += 18
    }

    /// The two lowercase hex digits of every byte, in order: "000102…ff".
    private static var hexPairs: UnsafePointer<UInt8> {
        ("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
            as StaticString).utf8Start
    }

    /// The two decimal digits of 0 to 99, in order: "000102…99".
    private static var decimalPairs: UnsafePointer<UInt8> {
        ("00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
            as StaticString).utf8Start
    }

    /// 10⁰ to 10¹⁹.
    private static let powersOfTen: [UInt64] = (0..<20).map { power in
        (0..<power).reduce(1) { value, _ in value * 10 }
    }

    /// Appends a dot as the JSON string "REPLICA:SEQUENCE" (the bytes of `string(dot.description)`).
    mutating func dot(_ dot: Dot) {
        replica(dot.replica)
        count -= 1  // reopen the string after the replica's closing quote
        append(UInt8(ascii: ":"))
        integer(dot.sequence)
        append(UInt8(ascii: "\""))
    }

    /// Appends a decimal integer.
    mutating func integer(_ value: some BinaryInteger) {
        // The digits of `String(value)`, without making the String, two at a time: stamps have
        // 16 digits, and a division per digit was 9 % of a dump's transcoding (perf). Every
        // caller passes a value of at most 64 bits, so its magnitude fits a UInt64 (Int64.min's
        // too), whose digits are at most 20.
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = UInt64(value.magnitude)
        // ⌊log₁₀ 2^bits⌋ by 1233/4096, one more when the value reaches the next power of ten.
        let bits = UInt64.bitWidth - (magnitude | 1).leadingZeroBitCount
        let power = (bits &* 1233) >> 12
        let length = max(1, power + (magnitude >= Self.powersOfTen[power] ? 1 : 0))
        reserve(length)
        let table = Self.decimalPairs
        var end = base + count + length
        while magnitude >= 100 {
            let pair = Int(truncatingIfNeeded: magnitude % 100) &* 2
            magnitude /= 100
            end -= 2
            end[0] = table[pair]
            end[1] = table[pair + 1]
        }
        if magnitude >= 10 {
            let pair = Int(truncatingIfNeeded: magnitude) &* 2
            end[-2] = table[pair]
            end[-1] = table[pair + 1]
        } else {
            end[-1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude)
        }
        count += length
    }

    /// Appends `true` or `false`.
    mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// Appends lowercase hex digits of `data` as a JSON string.
    mutating func hexString(_ data: some Sequence<UInt8>) {
        append(UInt8(ascii: "\""))
        for byte in data {
            append(Self.hexDigits[Int(byte >> 4)])
            append(Self.hexDigits[Int(byte & 0x0F)])
        }
        append(UInt8(ascii: "\""))
    }

    /// Appends a JSON array of strings.
    mutating func stringArray(_ values: [String]) {
        raw("[")
        for (index, value) in values.enumerated() {
            if index > 0 { raw(",") }
            string(value)
        }
        raw("]")
    }
}
