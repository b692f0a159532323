import TabKeepTestSupport
import Testing

@testable import TabKeep

/// Random identifiers (a fixed seed) against the rules that make keys unique.
@Suite("Identifiers, random")
struct IdentifierPropertyTests {
    @Test func documentKeysNeverCollide() throws {
        #expect(throws: IdentifierError.self) { try BarID("b\0c") }
        let pairs: [(String, String)] = [
            ("ab", "c"), ("a", "bc"), ("a", "b"), ("a\u{1}", "b"), ("é", "x"), ("e\u{301}", "x"),
            ("main", "main"),
        ]
        var seen: [[UInt8]: DocumentKey] = [:]
        for (profile, bar) in pairs {
            guard let profileID = try? ProfileID(profile), let barID = try? BarID(bar) else { continue }
            let key = DocumentKey(profile: profileID, bar: barID)
            #expect(seen.updateValue(key, forKey: key.bytes) == nil, "\(profile)|\(bar) collides")
            #expect(try DocumentKey(bytes: key.bytes) == key)
        }
        #expect(seen.count == 6)
        // Random pairs from a tiny alphabet, where prefix tricks are most likely.
        var rng = SplitMix64(seed: 42)
        var byBytes: [[UInt8]: DocumentKey] = [:]
        for _ in 0..<5000 {
            func word() -> String {
                String((0...(rng.next() % 3)).map { _ in "ab".randomElement(using: &rng)! })
            }
            let key = DocumentKey(profile: try ProfileID(word()), bar: try BarID(word()))
            if let other = byBytes.updateValue(key, forKey: key.bytes) { #expect(other == key) }
        }
        #expect(throws: IdentifierError.self) { try DocumentKey(bytes: Array("nosep".utf8)) }
        #expect(throws: IdentifierError.self) { try DocumentKey(bytes: [0x61, 0, 0x62, 0, 0x63]) }
        #expect(throws: IdentifierError.self) { try DocumentKey(bytes: [0, 0x62]) }
    }
}
