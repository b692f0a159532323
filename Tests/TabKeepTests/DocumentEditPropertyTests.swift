import TabKeepTestSupport
import Testing

@testable import TabKeep

/// Random move and reorder scripts (seeds 1…60) on one document.
@Suite("Document edits, random scripts")
struct DocumentEditPropertyTests {
    @Test func movesAndReordersProduceTheRequestedOrder() throws {
        for seed: UInt64 in 1...60 {
            var rng = SplitMix64(seed: seed)
            var replica = simulatedReplica(seed)
            var document = TabBarDocument()
            let catalog = randomCatalog
            for _ in 0..<40 {
                let layout = document.layout(catalog: catalog)
                let movable = layout.order.filter { $0 != tab("home") }
                if rng.next() % 2 == 0, let moving = movable.randomElement(using: &rng) {
                    let target = 1 + Int(rng.next() % UInt64(layout.order.count - 1))
                    try document.apply(.move(moving, to: target), catalog: catalog, by: &replica)
                    #expect(
                        document.layout(catalog: catalog).order[target] == moving,
                        "\(replayLine(seed: seed, filter: "DocumentEditPropertyTests"))")
                } else if rng.next() % 5 == 0 {
                    try document.apply(
                        .setHidden(tab("d"), rng.next() % 2 == 0), catalog: catalog, by: &replica)
                } else if rng.next() % 6 == 0 {
                    // After a clear, positions are tombstones: pins and moves must still win over them.
                    try document.apply(.reset, catalog: catalog, by: &replica)
                } else {
                    let order = [tab("home")] + movable.shuffled(using: &rng)
                    try document.apply(.reorder(order), catalog: catalog, by: &replica)
                    #expect(
                        document.layout(catalog: catalog).order == order,
                        "\(replayLine(seed: seed, filter: "DocumentEditPropertyTests"))")
                }
            }
        }
    }
}
