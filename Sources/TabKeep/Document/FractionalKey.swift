/// Fractional position keys: byte strings read as base-256 fractions, compared byte-wise.
///
/// A key never ends in 0x00, so byte order equals numeric order and there is always room below.
/// Keys written now end in a tag of their gap and their writer's replica id
/// (``suffix(for:after:)``), so two replicas never write the same key, even for concurrent moves
/// into one gap, and one replica's keys of two gaps differ where another catalog joins the gaps.
enum FractionalKey {
    /// The longest key; an edit that would need a longer one re-spaces its gap instead.
    static let maxLength = TabPlace.maxKeyLength
    /// The longest key of the first document format (one bar-wide order).
    static let maxFirstFormatLength = 32

    static func isValid(_ key: [UInt8]) -> Bool {
        !key.isEmpty && key.count <= maxLength && key.last != 0
    }

    static func isValidFirstFormat(_ key: [UInt8]) -> Bool {
        !key.isEmpty && key.count <= maxFirstFormatLength && key.last != 0
    }

    /// The tie-breaker of `replica`'s keys in the gap after the slot of `anchor` (nil: the gap
    /// before the first slot): two bytes naming the gap (a 16-bit FNV-1a hash of the anchor's id,
    /// 0 for none), then ``suffix(for:)``.
    ///
    /// Keys a device writes into different gaps then differ even where they start alike (every first
    /// key of an empty gap does): another app version that lacks a tab between two gaps shows them as
    /// one, and two equal keys there would leave no room for a move between their tabs but a re-space
    /// of the whole bar. Two anchors that share a hash only bring back that rare tie.
    static func suffix(for replica: ReplicaID, after anchor: TabID?) -> [UInt8] {
        var hash: UInt32 = 0x811C_9DC5
        if let anchor {
            for byte in anchor.rawValue.utf8 {
                hash ^= UInt32(byte)
                hash &*= 0x0100_0193
            }
        }
        let gap = anchor == nil ? 0 : UInt16(truncatingIfNeeded: hash ^ (hash >> 16))
        return [UInt8(gap >> 8), UInt8(truncatingIfNeeded: gap)] + suffix(for: replica)
    }

    /// The tie-breaker every key of `replica` ends in: its id, big-endian, then 0x01 so the key never
    /// ends in 0x00.
    static func suffix(for replica: ReplicaID) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(9)
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: replica.rawValue >> UInt64(shift)))
        }
        bytes.append(1)
        return bytes
    }

    /// A key strictly between `low` (nil: the start) and `high` (nil: the end) that is no prefix of
    /// `high`, so that any suffix appended to it stays below `high`; nil if none exists.
    ///
    /// With one side open it steps one unit past the bound instead of halving, so tabs put again and
    /// again at the start (or the end) of a gap cost a byte of key per 250 or so moves, not per 8.
    static func between(_ low: [UInt8]?, _ high: [UInt8]?) -> [UInt8]? {
        if low == nil, let high, let index = high.firstIndex(where: { $0 >= 2 }) {
            return Array(high[..<index]) + [high[index] - 1]
        }
        if high == nil, let low, let index = low.firstIndex(where: { $0 < 0xFF }) {
            return Array(low[..<index]) + [low[index] + 1]
        }
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
                // Between two bounds, end the middle in 0x01: the next squeeze above this key then
                // halves the room after it (255 values) instead of the room above the suffix's first
                // byte, a gap tag that may be as high as 0xFF, so every squeeze costs about a bit.
                if bounded { result.append(1) }
                return result
            }
            // Equal digits, or adjacent ones: keep the low digit; once below `high`, it no longer bounds.
            if highDigit - lowDigit == 1 { bounded = false }
            result.append(UInt8(lowDigit))
            index += 1
            if index > maxLength + 1 { return nil }
        }
    }

    /// A key of `replica` strictly between `low` and `high`, or nil when it would not fit `maxLength`.
    static func between(_ low: [UInt8]?, _ high: [UInt8]?, suffix: [UInt8]) -> [UInt8]? {
        guard let middle = between(low, high), middle.count + suffix.count <= maxLength else { return nil }
        return middle + suffix
    }

    /// `count` increasing keys strictly between `low` and `high`, spread by bisection, each ending in
    /// `suffix`, or nil when they do not fit within `maxLength`.
    static func spread(_ count: Int, between low: [UInt8]?, and high: [UInt8]?, suffix: [UInt8]) -> [[UInt8]]?
    {
        var result: [[UInt8]] = []
        result.reserveCapacity(count)
        guard fill(count, low, high, suffix, into: &result) else { return nil }
        return result
    }

    private static func fill(
        _ count: Int, _ low: [UInt8]?, _ high: [UInt8]?, _ suffix: [UInt8], into result: inout [[UInt8]]
    ) -> Bool {
        if count == 0 { return true }
        // Bounds are whole keys (suffix included), so every key stays strictly between its neighbours.
        guard let middle = between(low, high, suffix: suffix) else { return false }
        let before = (count - 1) / 2
        guard fill(before, low, middle, suffix, into: &result) else { return false }
        result.append(middle)
        return fill(count - 1 - before, middle, high, suffix, into: &result)
    }
}
