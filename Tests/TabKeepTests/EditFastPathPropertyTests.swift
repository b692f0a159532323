import TabKeepTestSupport
import Testing

@testable import TabKeep

/// The fast edit path (only what the edit reads is resolved: no order for a badge, flag or text
/// edit; a single entry written in place) against its slow twin (the whole bar resolved, the
/// entries merged in), over random documents (replicas editing and syncing, clears, a rename) and
/// random edits, valid and not, in catalogs with and without renames: the same document byte for
/// byte, the same replica afterwards, and the same error.
@Suite("Edit fast path against the slow path")
struct EditFastPathPropertyTests {
    /// The catalog without its rename, so the walk that maps no ids is exercised too.
    static let plainCatalog = try! Catalog(tabs: randomCatalog.tabs)

    @Test func fastAndSlowPathsAgreeOnEveryEdit() throws {
        let catalogs = [randomCatalog, randomCatalogBefore, Self.plainCatalog]
        var applied = 0
        var refused = 0
        for seed in propertySeeds(one: "TABKEEP_EDIT_SEED", many: "TABKEEP_EDIT_SEEDS", defaultCount: 60) {
            let replay = replayLine(
                seed: UInt64(seed), variable: "TABKEEP_EDIT_SEED", filter: "EditFastPathPropertyTests")
            var rng = SplitMix64(seed: 0xFA57 &+ UInt64(seed))
            for start in randomReplicaDocuments(&rng, steps: 10 + Int(rng.next() % 40)) {
                var document = start
                var replica = simulatedReplica(0xED17 &+ UInt64(seed), counter: UInt16(rng.next() % 50))
                for _ in 0..<20 {
                    let catalog = catalogs[Int(rng.next() % UInt64(catalogs.count))]
                    let edit = randomEdit(&rng, catalog: catalog, layout: document.layout(catalog: catalog))
                    var fast = document
                    var fastReplica = replica
                    var slow = document
                    var slowReplica = replica
                    let fastError = Self.outcome {
                        () throws(EditError) in
                        try fast.apply(edit, catalog: catalog, by: &fastReplica, path: .fast)
                    }
                    let slowError = Self.outcome {
                        () throws(EditError) in
                        try slow.apply(edit, catalog: catalog, by: &slowReplica, path: .slow)
                    }
                    #expect(fastError == slowError, "\(edit): errors differ — \(replay)")
                    #expect(fast.encoded() == slow.encoded(), "\(edit): documents differ — \(replay)")
                    #expect(fast == slow, "\(edit): documents differ — \(replay)")
                    #expect(fastReplica == slowReplica, "\(edit): replicas differ — \(replay)")
                    if fastError == nil { applied += 1 } else { refused += 1 }
                    document = slow
                    replica = slowReplica
                }
            }
        }
        // Both outcomes were compared many times, or the property says little.
        #expect(applied > 1_000 && refused > 100, "applied \(applied), refused \(refused)")
    }

    /// Badge counters the random documents reach too rarely to rely on: a badge set that saw
    /// nothing of a replica whose earlier increments a concurrent clear marked, then a newer
    /// increment of that replica. Its count starts from the clear's mark; every badge edit of that
    /// tab must come out the same on both paths.
    @Test func aBadgeSetBlindToAClearedReplicaCountsFromTheClearsMark() throws {
        let catalog = Self.plainCatalog
        let badge = tab("a")
        var counter = simulatedReplica(1 &* 0x1_0000_0001)
        var clearer = simulatedReplica(2 &* 0x1_0000_0001)
        var setter = simulatedReplica(3 &* 0x1_0000_0001)
        var counted = try applying(
            [.addToBadge(badge, 4)], to: TabBarDocument(), catalog: catalog, by: &counter)
        var cleared = counted
        cleared.merge(try applying([.reset], to: counted, catalog: catalog, by: &clearer))
        let set = try applying([.setBadge(badge, 10)], to: TabBarDocument(), catalog: catalog, by: &setter)
        counted = try applying([.addToBadge(badge, 3)], to: counted, catalog: catalog, by: &counter)
        var document = cleared
        document.merge(set)
        document.merge(counted)
        // 10 from the set, plus the counter's 7 − the 4 the clear had marked.
        #expect(document.layout(catalog: catalog).badges[badge] == 13)
        for edit: TabBarEdit in [
            .addToBadge(badge, 2), .addToBadge(badge, -20), .setBadge(badge, 1), .clearBadge(badge),
        ] {
            var fast = document
            var slow = document
            var fastReplica = setter
            var slowReplica = setter
            try fast.apply(edit, catalog: catalog, by: &fastReplica, path: .fast)
            try slow.apply(edit, catalog: catalog, by: &slowReplica, path: .slow)
            #expect(fast.encoded() == slow.encoded(), "\(edit): documents differ")
            #expect(fastReplica == slowReplica, "\(edit): replicas differ")
        }
    }

    static func outcome(_ body: () throws(EditError) -> Void) -> EditError? {
        do throws(EditError) {
            try body()
            return nil
        } catch {
            return error
        }
    }
}
