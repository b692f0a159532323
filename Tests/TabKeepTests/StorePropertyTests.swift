import Foundation
import LMDBKit
import TabKeep
import TabKeepTestSupport
import Testing

/// Random edits (a fixed seed) through one store, checked against what verify checks.
@Suite("Store, random edits")
struct StorePropertyTests {
    let directory = TemporaryDirectory()
    static let replay = replayLine(seed: 0x7AB5, filter: "StorePropertyTests")

    @Test func dotsAndVersionsStayConsistentAfterFiveThousandRandomEdits() throws {
        let store = try TabKeepStore(path: directory.sub("store"), options: .init(durability: .deferred))
        try store.registerCatalog(letterTabs)
        var random = SplitMix64(seed: 0x7AB5)
        let profiles = (0..<50).map { profile("p\($0)") }
        let tabs = letterTabs.tabs.map(\.id)
        var applied = 0
        for step in 0..<5_000 {
            let who = profiles.randomElement(using: &random)!
            let some = tabs.randomElement(using: &random)!
            let edit: TabBarEdit
            switch random.next() % 10 {
            case 0: edit = .move(some, to: Int(random.next() % 7))
            case 1: edit = .reorder(tabs.shuffled(using: &random))
            case 2: edit = .setCustomizableFlag(some, random.next() % 2 == 0)
            case 3: edit = .setHidden(some, random.next() % 2 == 0)
            case 4: edit = .select(random.next() % 5 == 0 ? .more : .tab(some))
            case 5: edit = .setBadge(some, Int(random.next() % 20))
            case 6: edit = .addToBadge(some, Int(random.next() % 11) - 5)
            case 7: edit = .setBadgeText(some, random.next() % 2 == 0 ? nil : "t\(step)")
            case 8: edit = step % 97 == 0 ? .reset : .clearBadge(some)
            default: edit = .setCustomizable(Array(tabs.shuffled(using: &random).prefix(3)))
            }
            do {
                try store.edit(who, edit)
                applied += 1
            } catch {
                // A move of a hidden tab, say, is refused and writes nothing; anything else is a failure.
                guard case .invalidEdit = error else { throw error }
            }
        }
        #expect(applied > 4_000, "\(Self.replay)")
        if random.next() % 2 == 0 { try store.erase(profiles[3]) }

        // The scan: every dot of every document has a `dots` row under its profile naming that
        // document, every row names a document holding its dot, and no dot is past its profile's
        // version vector — exactly what verify checks.
        try expectDotsAndVersionsMatchDocuments(store)
        // Every edit took at least one sequence of its own profile.
        let vectors = try store.versionVectors()
        #expect(vectors.values.reduce(0) { $0 + $1[store.replicaID] } >= UInt64(applied), "\(Self.replay)")
    }
}
