import TabKeepTestSupport
import Testing

@testable import TabKeep

/// Identifier order by prefix keys (the first eight bytes as one number) against the byte loop:
/// the same three-way order for every pair of NUL-free byte strings, with lengths around eight and
/// shared prefixes made common; the catalog lookups built on it find what a linear search finds;
/// and identifier equality, whose fast path compares two strings' representations, answers as
/// their bytes do.
@Suite struct IdentifierPrefixDifferentialPropertyTests {
    @Test func identifiersAreEqualExactlyWhenTheirBytesAre() throws {
        var random = SplitMix64(seed: 0x1D9)
        // Short and long (inline and stored), with canonically equivalent spellings that differ in bytes.
        let pieces = ["a", "b", "é", "e\u{301}", "tab-", "0123456789", "ß", "~"]
        func text() -> String {
            (0..<Int(random.next() % 7)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
                .joined()
        }
        for _ in 0..<20_000 {
            let left = text()
            let right: String
            switch random.next() % 4 {
            case 0: right = left  // the same representation
            case 1: right = String(decoding: Array(left.utf8), as: UTF8.self)  // the same bytes, built anew
            case 2: right = String(Substring("^" + left).dropFirst())  // the same bytes through a substring
            default: right = text()
            }
            let expected = Array(left.utf8) == Array(right.utf8)
            #expect(
                IdentifierRules.equal(left, right) == expected, "\(Array(left.utf8)) \(Array(right.utf8))")
            #expect(IdentifierRules.sameRepresentation(left, right) ? expected : true)
        }
        // Equal under Unicode equivalence (Swift's ==), unequal as identifiers.
        #expect(!IdentifierRules.equal("caf\u{E9}", "cafe\u{301}"))
        #expect(try TabID("caf\u{E9}") != TabID("cafe\u{301}"))
    }

    @Test func prefixKeysOrderIdentifiersAsTheirBytesDo() {
        var random = SplitMix64(seed: 0x1D8)
        // Few distinct bytes, so that long shared prefixes and equal ids come up often.
        let alphabet: [UInt8] = [0x01, 0x20, 0x61, 0x62, 0x7E, 0x7F, 0x80, 0xC3, 0xFF]
        func id() -> [UInt8] {
            (0..<Int(random.next() % 19)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
        }
        for _ in 0..<40_000 {
            let left = id()
            // Often the right one starts as the left one does.
            var right = random.next() % 2 == 0 ? Array(left.prefix(Int(random.next() % 12))) : []
            right += id().prefix(Int(random.next() % 12))
            left.withUnsafeBufferPointer { lhs in
                right.withUnsafeBufferPointer { rhs in
                    let byLoop = IdentifierRules.compare(lhs, rhs)
                    let byKey = IdentifierRules.compare(
                        lhs, key: IdentifierRules.prefixKey(lhs), rhs, key: IdentifierRules.prefixKey(rhs))
                    #expect(byKey.signum() == byLoop.signum(), "\(left) \(right)")
                }
            }
        }
    }

    @Test func catalogLookupsByPrefixKeyFindWhatALinearSearchFinds() throws {
        let names = ["a", "ab", "abcdefgh", "abcdefghi", "abcdefgh1", "abcdefgg", "zz", "é", "éé", "library"]
        let catalog = try Catalog(names.map { try TabID($0) })
        let table = catalog.idTable
        let probes = names + ["", "abcdefg", "abcdefghij", "abcdefgh0", "b", "é1", "librar", "libraryy", "~"]
        table.bytes.withUnsafeBufferPointer { ids in
            for probe in probes {
                let bytes = Array(probe.utf8)
                let expected = names.firstIndex(of: probe)
                bytes.withUnsafeBufferPointer { tab in
                    #expect(table.catalogIndex(of: tab, in: ids) == expected, "\(probe)")
                }
            }
        }
    }
}
