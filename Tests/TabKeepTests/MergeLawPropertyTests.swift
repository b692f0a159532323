import TabKeepTestSupport
import Testing

@testable import TabKeep

@Suite("Merge laws")
struct MergeLawPropertyTests {
    /// Fixed seeds: a failure names its seed, and rerunning reproduces it.
    static let seeds: [UInt64] = (0..<420).map { 0x5EED_0000 + UInt64($0) }

    @Test func mergeIsCommutativeAssociativeAndIdempotentOnRandomDocuments() throws {
        var documentCount = 0
        for seed in Self.seeds {
            var rng = SplitMix64(seed: seed)
            let documents = randomReplicaDocuments(&rng, steps: 12 + Int(rng.next() % 30))
            documentCount += documents.count
            let a = documents[Int(rng.next() % UInt64(documents.count))]
            let b = documents[Int(rng.next() % UInt64(documents.count))]
            let c = documents[Int(rng.next() % UInt64(documents.count))]
            let ab = a.merging(b)
            // Booleans, so a failure prints its seed rather than pages of bytes.
            let commutes = ab.encoded() == b.merging(a).encoded()
            let associates = ab.merging(c).encoded() == a.merging(b.merging(c)).encoded()
            let idempotent = a.merging(a).encoded() == a.encoded()
            let absorbs = ab.merging(a).encoded() == ab.encoded()
            #expect(
                commutes,
                "merge(A,B) != merge(B,A), \(replayLine(seed: seed, filter: "MergeLawPropertyTests"))")
            #expect(
                associates,
                "merge(merge(A,B),C) != merge(A,merge(B,C)), \(replayLine(seed: seed, filter: "MergeLawPropertyTests"))"
            )
            #expect(idempotent, "merge(A,A) != A, \(replayLine(seed: seed, filter: "MergeLawPropertyTests"))")
            #expect(
                absorbs,
                "merge(merge(A,B),A) != merge(A,B), \(replayLine(seed: seed, filter: "MergeLawPropertyTests"))"
            )
            for document in [a, ab, ab.merging(c)] {
                #expect(
                    document.problems().isEmpty,
                    "problems \(document.problems()), \(replayLine(seed: seed, filter: "MergeLawPropertyTests"))"
                )
                let roundTrips = try TabBarDocument(decoding: document.encoded()) == document
                #expect(roundTrips, "round trip, \(replayLine(seed: seed, filter: "MergeLawPropertyTests"))")
            }
        }
        #expect(documentCount >= 1000)
    }

    @Test func allReplicasConvergeAfterSyncingInAnyOrder() {
        for seed in Self.seeds.prefix(100) {
            var rng = SplitMix64(seed: seed)
            let documents = randomReplicaDocuments(&rng, steps: 30)
            let forward = documents.reduce(TabBarDocument()) { $0.merging($1) }
            let backward = documents.reversed().reduce(TabBarDocument()) { $0.merging($1) }
            let converged = forward.encoded() == backward.encoded()
            #expect(converged, "replicas diverge, \(replayLine(seed: seed, filter: "MergeLawPropertyTests"))")
            #expect(
                forward.layout(catalog: randomCatalog) == backward.layout(catalog: randomCatalog),
                "\(replayLine(seed: seed, filter: "MergeLawPropertyTests"))")
        }
    }

    /// A clear that saw only the winner of a key: grouping must not matter.
    @Test func clearThatSawOnlyTheWinnerKeepsMergeAssociative() throws {
        let catalog = lettersCatalog(3)
        var one = simulatedReplica(1)
        var two = simulatedReplica(2, counter: 100)
        var three = simulatedReplica(3, counter: 200)
        let older = try applying(
            [.setHidden(tab("a"), true)], to: TabBarDocument(), catalog: catalog, by: &one)
        let newer = try applying(
            [.setHidden(tab("a"), false)], to: TabBarDocument(), catalog: catalog, by: &two)
        let cleared = try applying([.reset], to: newer, catalog: catalog, by: &three)
        let left = older.merging(newer).merging(cleared)
        let right = older.merging(newer.merging(cleared))
        #expect(left.encoded() == right.encoded())
        // The older write lost to the one the clear removed, so it stays beaten.
        #expect(left.layout(catalog: catalog).hidden.isEmpty)
    }
}
