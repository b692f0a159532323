/// Fractional position keys: byte strings read as base-256 fractions, compared byte-wise.
///
/// A key never ends in 0x00, so byte order equals numeric order and there is always room below.
enum FractionalKey {
    /// The longest key; an edit that would need a longer one re-spaces the bar instead.
    static let maxLength = 32

    static func isValid(_ key: [UInt8]) -> Bool {
        !key.isEmpty && key.count <= maxLength && key.last != 0
    }

    /// A key strictly between `low` (nil: the start) and `high` (nil: the end), or nil if none exists.
    static func between(_ low: [UInt8]?, _ high: [UInt8]?) -> [UInt8]? {
        let low = low ?? []
        if let high, !low.lexicographicallyPrecedes(high) { return nil }
        var result: [UInt8] = []
        var index = 0
        var bounded = high != nil
        while true {
            let lowDigit = index < low.count ? Int(low[index]) : 0
            var highDigit = 256
            if bounded, let high {
                highDigit = index < high.count ? Int(high[index]) : 0
            }
            if highDigit - lowDigit >= 2 {
                result.append(UInt8(lowDigit + (highDigit - lowDigit) / 2))
                return result
            }
            // Equal digits, or adjacent ones: keep the low digit; once below `high`, it no longer bounds.
            if highDigit - lowDigit == 1 { bounded = false }
            result.append(UInt8(lowDigit))
            index += 1
            if index > maxLength + 1 { return nil }
        }
    }

    /// `count` increasing keys strictly between `low` and `high`, spread by bisection, or nil when they
    /// do not fit within `maxLength`.
    static func spread(_ count: Int, between low: [UInt8]?, and high: [UInt8]?) -> [[UInt8]]? {
        var result: [[UInt8]] = []
        result.reserveCapacity(count)
        guard fill(count, low, high, into: &result) else { return nil }
        return result
    }

    private static func fill(_ count: Int, _ low: [UInt8]?, _ high: [UInt8]?, into result: inout [[UInt8]])
        -> Bool
    {
        if count == 0 { return true }
        guard let middle = between(low, high), middle.count <= maxLength else { return false }
        let before = (count - 1) / 2
        guard fill(before, low, middle, into: &result) else { return false }
        result.append(middle)
        return fill(count - 1 - before, middle, high, into: &result)
    }
}
