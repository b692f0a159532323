#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A hybrid logical clock: stamps follow wall time but never go backwards.
///
/// ```swift
/// var clock = HybridLogicalClock()
/// let first = clock.tick()
/// let second = clock.tick()  // second > first, even within one millisecond
/// ```
public struct HybridLogicalClock: Hashable, Sendable {
    /// The last stamp issued or observed.
    public private(set) var last: Stamp

    /// A clock that has issued `last`.
    public init(last: Stamp = .zero) {
        self.last = last
    }

    /// A new stamp > last and >= wall time (counter overflow borrows the next millisecond). It never
    /// wraps: at ``Stamp/last`` it stays there, and the store refuses to commit such an edit.
    public mutating func tick(wallMilliseconds: UInt64 = HybridLogicalClock.wallMilliseconds()) -> Stamp {
        let wall = min(wallMilliseconds, Stamp.millisecondMask)
        let next: Stamp
        if wall > last.milliseconds {
            next = Stamp(milliseconds: wall, counter: 0)
        } else if last.counter < UInt16.max {
            next = Stamp(milliseconds: last.milliseconds, counter: last.counter + 1)
        } else if last.milliseconds < Stamp.millisecondMask {
            next = Stamp(milliseconds: last.milliseconds + 1, counter: 0)
        } else {
            next = Stamp.last
        }
        last = next
        return next
    }

    /// Moves last forward to at least `remote` (the store's clock guard decides whether to call it).
    public mutating func observe(_ remote: Stamp) {
        if remote > last { last = remote }
    }

    /// Wall time in milliseconds since 1970.
    public static func wallMilliseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return UInt64(max(0, spec.tv_sec)) * 1000 + UInt64(max(0, spec.tv_nsec)) / 1_000_000
    }
}
