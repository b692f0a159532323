import TabKeepTestSupport
import Testing

@testable import TabKeep

/// `SmallMap` (its first key inline, the rest in a `Dictionary`) against `Dictionary` alone: random
/// inserts, updates, removals and default-subscript updates over a few keys or many, every read
/// compared after every step, and the key-ordered walk against a sort of the dictionary.
@Suite struct SmallMapDifferentialPropertyTests {
    @Test(arguments: [1, 2, 3, 8, 200])
    func everyReadIsTheDictionarysAfterEveryStep(keyCount: Int) {
        var random = SplitMix64(seed: 0x5A11 &+ UInt64(keyCount))
        for round in 0..<(keyCount > 8 ? 4 : 40) {
            var small = SmallMap<String, Int>()
            var plain: [String: Int] = [:]
            for step in 0..<(4 * keyCount + 20) {
                let key = "k\(random.next() % UInt64(keyCount))"
                switch random.next() % 5 {
                case 0, 1:
                    let value = Int(random.next() % 1_000)
                    small[key] = value
                    plain[key] = value
                case 2:
                    small[key] = nil
                    plain[key] = nil
                case 3:
                    small[key, default: 7] += 1
                    plain[key, default: 7] += 1
                default:
                    break
                }
                let probe = "k\(random.next() % UInt64(keyCount + 1))"
                let context = "keys \(keyCount), round \(round), step \(step), \(key), probe \(probe)"
                #expect(small[probe] == plain[probe], "\(context)")
                #expect(small.count == plain.count, "\(context)")
                #expect(small.isEmpty == plain.isEmpty, "\(context)")
                #expect(small.keys.sorted() == plain.keys.sorted(), "\(context)")
                var walked: [(String, Int)] = []
                small.forEachInKeyOrder { walked.append(($0, $1)) }
                let sorted = plain.sorted { $0.key < $1.key }
                #expect(walked.map(\.0) == sorted.map(\.key), "\(context)")
                #expect(walked.map(\.1) == sorted.map(\.value), "\(context)")
                var visited: [String: Int] = [:]
                small.forEach { key, value in
                    #expect(visited[key] == nil, "\(key) visited twice: \(context)")
                    visited[key] = value
                }
                #expect(visited == plain, "\(context)")
            }
        }
    }
}
