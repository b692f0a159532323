import Foundation
import TabKeep

/// The tokens of a dump line in the exact form ``DumpWriter`` writes one, read straight from its
/// bytes: the literals between values, strings without escapes, ids, replicas, dots and JSON
/// integers. Shared by the two fast paths of reading a version 3 document line
/// (`DumpDocumentLineScanner`, into entries, and `DumpLineTranscoder`, into a store's bytes); each
/// returns nil for what it does not take, and the caller leaves the line to the slow path.
struct DumpLineCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    /// The offset of the next byte to read.
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { index == bytes.count }

    /// The next byte, not consumed; nil at the end.
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// The byte `offset` past the next one, not consumed, when one more byte follows it; else nil.
    func byte(at offset: Int) -> UInt8? { bytes.count - index > offset + 1 ? bytes[index + offset] : nil }

    /// An entry kind's name and its closing quote, as the byte that stands for the kind in the
    /// stored format (`EntryKind`), told apart by the first letter, then the sixth; nil for
    /// anything else.
    mutating func kindByte() -> UInt8? {
        switch peek {
        case UInt8(ascii: "p"): return literal("position\"") ? 0 : nil
        case UInt8(ascii: "c"):
            if literal("customizable\"") { return 1 }
            return literal("cleared\"") ? 7 : nil
        case UInt8(ascii: "h"): return literal("hidden\"") ? 2 : nil
        case UInt8(ascii: "s"): return literal("selection\"") ? 3 : nil
        case UInt8(ascii: "b"):
            guard let sixth = byte(at: 5) else { return nil }
            switch sixth {
            case UInt8(ascii: "T"): return literal("badgeText\"") ? 4 : nil
            case UInt8(ascii: "R"): return literal("badgeReset\"") ? 5 : nil
            default: return literal("badgeIncrements\"") ? 6 : nil
            }
        default: return nil
        }
    }

    /// Consumes `text` if the line continues with it.
    @inline(__always)
    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count, let base = bytes.baseAddress else { return false }
        let pointer = text.utf8Start
        if count == 1 {
            guard base[index] == pointer[0] else { return false }
        } else if memcmp(base + index, pointer, count) != 0 {
            return false
        }
        index += count
        return true
    }

    /// The bytes of `word` that may end a string — a quote, a backslash or a control character —
    /// as their high bits: the lowest one set is exactly the first such byte (a byte above it may
    /// be marked too, never one below). `word` holds the bytes in memory order, first lowest.
    @inline(__always)
    static func stringStops(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        /// The high bit of each byte of `value` that is zero (and maybe of bytes above one).
        func zeros(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let controls = (word &- ones &* 0x20) & ~word & highs
        return controls | zeros(word ^ (ones &* 0x22)) | zeros(word ^ (ones &* 0x5C))
    }

    /// The bytes up to the closing quote of a string whose opening quote was consumed, past it;
    /// nil for an escape, a control character or no closing quote. Reads eight bytes at a time.
    mutating func stringBytes() -> UnsafeBufferPointer<UInt8>? {
        let start = index
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var at = start
        var found = false
        while at + 8 <= count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self))
            let stops = Self.stringStops(word)
            if stops != 0 {
                at += stops.trailingZeroBitCount / 8
                found = true
                break
            }
            at += 8
        }
        if !found {
            while at < count {
                let byte = base[at]
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
                at += 1
            }
        }
        guard at < count, base[at] == UInt8(ascii: "\"") else { return nil }
        index = at + 1
        return UnsafeBufferPointer(rebasing: bytes[start..<at])
    }

    /// A string that keeps the identifier rules (its opening quote consumed).
    mutating func identifier(maxBytes: Int) -> String? {
        guard let raw = stringBytes(), IdentifierRules.problem(in: raw, maxBytes: maxBytes) == nil else {
            return nil
        }
        return ByteReader.text(raw)
    }

    /// ``identifier(maxBytes:)``'s bytes, without making the string: the identifier rules, and
    /// valid UTF-8.
    mutating func identifierBytes(maxBytes: Int) -> UnsafeBufferPointer<UInt8>? {
        guard let raw = stringBytes(), IdentifierRules.problem(in: raw, maxBytes: maxBytes) == nil,
            DumpTranscoder.Reader.isUTF8(raw)
        else { return nil }
        return raw
    }

    /// Any string of valid UTF-8 (its opening quote consumed).
    mutating func plainString() -> String? {
        guard let raw = stringBytes() else { return nil }
        return ByteReader.text(raw)
    }

    /// 16 lowercase hex digits and the closing quote (the opening one consumed).
    mutating func replica() -> ReplicaID? {
        guard let raw = stringBytes() else { return nil }
        return DumpFields.replicaHex(raw)
    }

    /// "REPLICA:SEQUENCE" with a nonzero decimal sequence, and the closing quote.
    mutating func dot() -> Dot? {
        stringBytes().flatMap(DumpEntryReader.plainDot)
    }

    /// An even, nonempty run of hex digits and the closing quote, as bytes.
    mutating func hexKey() -> [UInt8]? {
        stringBytes().flatMap(DumpEntryReader.hexBytes)
    }

    /// A JSON integer that fits 64 bits unsigned: `0` or a digit run without a leading zero.
    mutating func unsigned() -> UInt64? {
        let start = index
        var value: UInt64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(digit))
            if overflow || carry { return nil }
            value = sum
            index += 1
        }
        let count = index - start
        guard count > 0, count == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        // A fraction or an exponent makes it no integer of this path.
        if index < bytes.count,
            bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "e")
                || bytes[index] == UInt8(ascii: "E")
        {
            return nil
        }
        return value
    }

    /// A JSON integer that fits 64 bits signed.
    mutating func signed() -> Int64? {
        let negative = literal("-")
        guard let magnitude = unsigned() else { return nil }
        if negative {
            guard magnitude != 0, magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }
}
