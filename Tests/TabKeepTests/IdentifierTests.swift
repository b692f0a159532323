import Testing

@testable import TabKeep

@Suite("Identifiers")
struct IdentifierTests {
    @Test func invalidIdsNameTheFieldAndTheRule() {
        let cases: [(String, String, String)] = [
            ("", "tab", "must be 1–64 UTF-8 bytes"),
            (String(repeating: "x", count: 65), "tab", "must be 1–64 UTF-8 bytes"),
            ("a\0b", "tab", "must not contain NUL"),
            ("a\nb", "tab", "must not contain control characters"),
            ("a\u{7F}", "tab", "must not contain control characters"),
            ("a\u{85}", "tab", "must not contain control characters"),
        ]
        for (value, field, rule) in cases {
            #expect {
                try TabID(value)
            } throws: { error in
                let error = error as? IdentifierError
                return error?.field == field && error?.rule == rule
                    && error?.description.hasPrefix("invalid \(field) ") == true
            }
        }
        #expect(throws: IdentifierError.self) { try ProfileID(String(repeating: "p", count: 129)) }
        #expect(throws: IdentifierError.self) { try BarID(String(repeating: "b", count: 65)) }
        #expect((try? ProfileID(String(repeating: "é", count: 64))) != nil)
        #expect(throws: IdentifierError(field: "profile", value: "", rule: "must be 1–128 UTF-8 bytes")) {
            try ProfileID("")
        }
        #expect(
            IdentifierError(field: "bar", value: "a\u{1}", rule: "r").description
                == "invalid bar \"a\\u{01}\": r")
    }

    @Test func replicaIdsAreSixteenLowercaseHexDigits() throws {
        let id = ReplicaID(rawValue: 0x00ab_cdef_0123_4567)
        #expect(id.description == "00abcdef01234567")
        #expect(try ReplicaID(hex: "00abcdef01234567") == id)
        for bad in ["", "00ABCDEF01234567", "00abcdef0123456", "00abcdef012345678", "00abcdef0123456g"] {
            #expect(throws: IdentifierError.self) { try ReplicaID(hex: bad) }
        }
        #expect(ReplicaID.random().rawValue != 0)
    }

    @Test func idsCompareByBytesNotUnicodeEquivalence() throws {
        let composed = try TabID("é")
        let decomposed = try TabID("e\u{301}")
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed]).count == 2)
        #expect(decomposed < composed)
    }

    @Test func clockNeverGoesBackwardsAndBorrowsOnCounterOverflow() {
        var clock = HybridLogicalClock()
        let first = clock.tick(wallMilliseconds: 1000)
        let second = clock.tick(wallMilliseconds: 900)
        #expect(second > first && second.milliseconds == 1000 && second.counter == 1)
        clock.observe(Stamp(milliseconds: 2000, counter: UInt16.max))
        let borrowed = clock.tick(wallMilliseconds: 1500)
        #expect(borrowed.milliseconds == 2001 && borrowed.counter == 0)
        var vector = VersionVector()
        vector[ReplicaID(rawValue: 2)] = 3
        vector.merge(VersionVector([ReplicaID(rawValue: 1): 5, ReplicaID(rawValue: 2): 1]))
        #expect(vector.replicas == [ReplicaID(rawValue: 1), ReplicaID(rawValue: 2)])
        #expect(vector.contains(Dot(replica: ReplicaID(rawValue: 2), sequence: 3)))
        #expect(!vector.contains(Dot(replica: ReplicaID(rawValue: 2), sequence: 4)))
    }
}
