import TabKeepTestSupport
import Testing

@testable import TabKeep

/// The record keys a write transaction builds on the stack against the arrays the rest of the
/// store builds: the same bytes for documents, layouts, versions, tail records and counters, over
/// random identifiers (short and long, ASCII and not, with the tagged and the untagged key layout).
@Suite struct StackKeyDifferentialPropertyTests {
    @Test func everyStackKeyIsTheArrayKey() throws {
        let directory = TemporaryDirectory()
        let store = try TabKeepStore(path: directory.sub("store"))
        let tagged = store.spaces
        #expect(tagged.tagged)
        let untagged = RecordSpaces(
            documents: tagged.documents, dots: tagged.dots, versions: tagged.versions, tagged: false)
        var random = SplitMix64(seed: 0x57AC)
        let pieces = ["a", "Z", "9", "-", "é", "tab", "0123456789abcdef", "ü", "_"]
        func text() -> String {
            let count = Int(random.next() % 4)
            return "p" + (0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
        }
        for _ in 0..<3_000 {
            let key = DocumentKey(profile: try ProfileID(text()), bar: try BarID(text()))
            let replica = ReplicaID(rawValue: random.next() | 1)
            let number = random.next() >> (random.next() % 64)
            for spaces in [tagged, untagged] {
                let context = "\(key), replica \(replica), tagged \(spaces.tagged)"
                #expect(
                    spaces.withVersionKey(key.profile, replica) { Array($0) }
                        == spaces.versionKey(key.profile, replica), "\(context)")
                #expect(spaces.withDocumentKey(key) { Array($0) } == spaces.documentKey(key), "\(context)")
                if spaces.tagged {
                    #expect(
                        spaces.withKey(key, Records.Tag.layout) { Array($0) } == spaces.layoutKey(key),
                        "\(context)")
                }
            }
            #expect(Records.withChangeTailKey(number) { Array($0) } == Records.changeTailKey(number))
            #expect(Records.withBigEndian(number) { Array($0) } == Records.bigEndian(number))
            #expect(Records.withBigEndian(number) { Records.uint64($0) } == number)
        }
    }
}
