import LMDBKit
import TabKeep
import TabKeepTestSupport
import Testing

@Suite("Cursors")
struct CursorTests {
    let directory = TemporaryDirectory()

    func filled() throws -> (Environment, Database) {
        let env = try Environment.open(path: directory.sub("env"), configuration: .init(databases: ["items"]))
        let items = try env.database("items")
        try env.write { txn throws in
            for key in ["a", "b/1", "b/2", "b/3", "b0", "c", "c/1"] {
                try txn.put(items, key: key.bytes, value: key.uppercased().bytes)
            }
            try txn.put(items, key: [0x62, 0xFF], value: [0])
            try txn.put(items, key: [0x62, 0xFF, 0xFF], value: [0])
        }
        return (env, items)
    }

    func keys(_ env: Environment, _ items: Database, _ range: KeyRange, reverse: Bool = false) throws
        -> [String]
    {
        try env.read { txn throws in
            var result: [String] = []
            try txn.forEach(items, in: range, reverse: reverse) { key, _ in
                result.append(String(decoding: key, as: UTF8.self))
                return true
            }
            return result
        }
    }

    @Test func prefixIterationReturnsKeysInOrderBothWays() throws {
        let (env, items) = try filled()
        #expect(try keys(env, items, .prefix("b/".bytes)) == ["b/1", "b/2", "b/3"])
        #expect(try keys(env, items, .prefix("b/".bytes), reverse: true) == ["b/3", "b/2", "b/1"])
        #expect(try keys(env, items, .prefix("c".bytes), reverse: true) == ["c/1", "c"])
        #expect(try keys(env, items, .prefix("z".bytes)).isEmpty)
    }

    @Test func prefixIterationHandlesAllOnesBytes() throws {
        let (env, items) = try filled()
        let found = try env.read { txn throws in
            try txn.records(items, in: .prefix([0x62, 0xFF])).map(\.key)
        }
        #expect(found == [[0x62, 0xFF], [0x62, 0xFF, 0xFF]])
    }

    @Test func rangeIterationIsHalfOpenBothWays() throws {
        let (env, items) = try filled()
        let range = KeyRange(from: "b/2".bytes, to: "c/1".bytes)
        #expect(try keys(env, items, range).prefix(3) == ["b/2", "b/3", "b0"])
        #expect(try keys(env, items, range).last == "c")
        #expect(try keys(env, items, range, reverse: true).first == "c")
        #expect(try keys(env, items, range, reverse: true).last == "b/2")
        #expect(try keys(env, items, .all).first == "a")
        #expect(try keys(env, items, .all, reverse: true).first == "c/1")
    }

    @Test func iterationStopsWhenTheBodySaysSo() throws {
        let (env, items) = try filled()
        let seen = try env.read { txn throws in
            var count = 0
            try txn.forEach(items) { _, _ in
                count += 1
                return count < 2
            }
            return count
        }
        #expect(seen == 2)
    }

    @Test func cursorMovesAndSeeks() throws {
        let (env, items) = try filled()
        try env.read { txn throws in
            try txn.withCursor(items) { cursor throws in
                let exact = try cursor.seek(exactly: "b0".bytes)
                #expect(exact.map { String(decoding: $0.value, as: UTF8.self) } == "B0")
                #expect(try cursor.seek(exactly: "bz".bytes).map { Array($0.key) } == nil)
                #expect(try cursor.seek(atLeast: "b5".bytes).map { Array($0.key) } == [0x62, 0xFF])
                #expect(try cursor.seek(atLeast: "c0".bytes).map { Array($0.key) } == nil)
                #expect(try cursor.last().map { Array($0.key) } == "c/1".bytes)
                #expect(try cursor.next().map { Array($0.key) } == nil)
            }
        }
    }
}

@Suite("Key ranges")
struct KeyRangeOrderTests {
    /// Keys from a small alphabet that makes prefixes, equal runs, 0x00 and 0xFF common.
    static func key(_ random: inout SplitMix64) -> [UInt8] {
        let alphabet: [UInt8] = [0x00, 0x01, 0x61, 0x62, 0x7F, 0x80, 0xFE, 0xFF]
        return (0..<Int(random.next() % 6)).map { _ in alphabet[Int(random.next() % 8)] }
    }

    @Test func aRangeHoldsTheSameKeysByMemcmpAsByTheSequenceOrder() {
        var random = SplitMix64(seed: 23)
        var inside = 0
        for _ in 0..<20_000 {
            let lower = random.next() % 4 == 0 ? nil : Self.key(&random)
            let upper = random.next() % 4 == 0 ? nil : Self.key(&random)
            let range =
                random.next() % 3 == 0 ? KeyRange.prefix(Self.key(&random)) : KeyRange(from: lower, to: upper)
            let key = Self.key(&random)
            let fast = key.withUnsafeBytes { range.contains($0) }
            let slow = key.withUnsafeBytes { range.containsBySequenceOrder($0) }
            #expect(fast == slow, "range \(range), key \(key)")
            if fast { inside += 1 }
        }
        // Both answers occur often, so the comparison is not one-sided.
        #expect(inside > 2_000 && inside < 18_000)
    }
}
