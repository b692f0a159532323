/// A hybrid logical clock reading: 48 bits of milliseconds since 1970, then 16 bits of counter.
///
/// ```swift
/// let stamp = Stamp(milliseconds: 1_700_000_000_000, counter: 2)
/// stamp > .zero  // true
/// ```
public struct Stamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds ‖ counter.
    public let rawValue: UInt64

    /// Wraps a raw value.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Milliseconds (only the low 48 bits are kept) and a counter.
    public init(milliseconds: UInt64, counter: UInt16) {
        self.rawValue = (milliseconds & Stamp.millisecondMask) << 16 | UInt64(counter)
    }

    /// The milliseconds part.
    public var milliseconds: UInt64 { rawValue >> 16 }
    /// The counter part.
    public var counter: UInt16 { UInt16(truncatingIfNeeded: rawValue) }

    /// The lowest stamp: what pins are written with, so any real edit beats them.
    public static let zero = Stamp(rawValue: 0)

    /// The highest stamp: a clock that reaches it stops there (see ``HybridLogicalClock/tick(wallMilliseconds:)``).
    public static let last = Stamp(rawValue: .max)

    /// The largest millisecond value a stamp holds.
    static let millisecondMask: UInt64 = (1 << 48) - 1

    /// "milliseconds.counter".
    public var description: String { "\(milliseconds).\(counter)" }

    /// Numeric order.
    public static func < (lhs: Stamp, rhs: Stamp) -> Bool { lhs.rawValue < rhs.rawValue }
}
