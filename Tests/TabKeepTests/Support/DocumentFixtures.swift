import TabKeepTestSupport
import Testing

@testable import TabKeep

/// A simulated replica whose clock runs ahead of the wall clock, so stamps only depend on the
/// edits made (reproducible), starting from `counter`.
func simulatedReplica(_ id: UInt64, counter: UInt16 = 0) -> Replica {
    Replica(
        id: ReplicaID(rawValue: id),
        clock: HybridLogicalClock(last: Stamp(milliseconds: 1 << 46, counter: counter)))
}

/// Applies edits that are expected to succeed.
func applying(_ edits: [TabBarEdit], to document: TabBarDocument, catalog: Catalog, by replica: inout Replica)
    throws -> TabBarDocument
{
    var result = document
    for edit in edits {
        try result.apply(edit, catalog: catalog, by: &replica)
    }
    return result
}

/// The catalog the random documents are built against: every placement, and a rename.
let randomCatalog = try! Catalog(
    tabs: [
        Catalog.Tab(tab("home"), placement: .fixed),
        Catalog.Tab(tab("a")),
        Catalog.Tab(tab("b"), customizable: false),
        Catalog.Tab(tab("c"), placement: .movable),
        Catalog.Tab(tab("d"), placement: .optional),
        Catalog.Tab(tab("e"), hidden: true),
        Catalog.Tab(tab("f")),
        Catalog.Tab(tab("g")),
    ],
    renames: [tab("old-a"): tab("a")])

/// The same app before the rename, so old ids get written too.
let randomCatalogBefore = try! Catalog(
    tabs: [
        Catalog.Tab(tab("home"), placement: .fixed),
        Catalog.Tab(tab("old-a")),
        Catalog.Tab(tab("b"), customizable: false),
        Catalog.Tab(tab("c"), placement: .movable),
        Catalog.Tab(tab("f")),
        Catalog.Tab(tab("g")),
    ])

/// A random edit of any kind, sometimes an invalid one.
func randomEdit(_ rng: inout SplitMix64, catalog: Catalog, layout: Layout) -> TabBarEdit {
    let ids = catalog.tabs.map(\.id) + [tab("nope")]
    let anyTab = ids.randomElement(using: &rng)!
    switch rng.next() % 12 {
    case 0, 1:
        return .move(anyTab, to: Int(rng.next() % UInt64(max(1, layout.order.count + 1))))
    case 2:
        return .reorder(layout.order.shuffled(using: &rng))
    case 3:
        return .setCustomizable(layout.order.filter { _ in rng.next() % 2 == 0 })
    case 4:
        return .setHidden(anyTab, rng.next() % 2 == 0)
    case 5:
        switch rng.next() % 3 {
        case 0: return .select(.tab(anyTab))
        case 1: return .select(.more)
        default: return .select(.none)
        }
    case 6:
        return .setBadge(anyTab, Int(rng.next() % 12) - 1)
    case 7, 8:
        return .addToBadge(anyTab, Int(rng.next() % 15) - 7)
    case 9:
        return rng.next() % 2 == 0
            ? .clearBadge(anyTab) : .setBadgeText(anyTab, rng.next() % 3 == 0 ? nil : "n\(rng.next() % 100)")
    case 10:
        return .setCustomizableFlag(anyTab, rng.next() % 2 == 0)
    default:
        return rng.next() % 3 == 0 ? .reset : .move(anyTab, to: 0)
    }
}

/// Replicas editing and syncing at random; returns their documents.
func randomReplicaDocuments(_ rng: inout SplitMix64, steps: Int) -> [TabBarDocument] {
    let replicaCount = 3 + Int(rng.next() % 3)
    var replicas = (0..<replicaCount).map {
        simulatedReplica(UInt64($0 + 1) &* 0x1_0000_0001, counter: UInt16(rng.next() % 50))
    }
    var documents = [TabBarDocument](repeating: TabBarDocument(), count: replicaCount)
    for _ in 0..<steps {
        let who = Int(rng.next() % UInt64(replicaCount))
        if rng.next() % 4 == 0 {
            let from = Int(rng.next() % UInt64(replicaCount))
            documents[who].merge(documents[from])
            continue
        }
        let catalog = rng.next() % 5 == 0 ? randomCatalogBefore : randomCatalog
        let edit = randomEdit(&rng, catalog: catalog, layout: documents[who].layout(catalog: catalog))
        let before = documents[who]
        do {
            try documents[who].apply(edit, catalog: catalog, by: &replicas[who])
        } catch {
            // A refused edit changes nothing.
            #expect(documents[who] == before, "refused edit \(edit) changed the document")
        }
    }
    return documents
}

/// `valid` with one random mutation: a bit flipped, one to six bytes cut from the end, a random
/// byte inserted, or a byte set to 0xFF.
func mutatedDocumentBytes(_ valid: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
    var bytes = valid
    switch rng.next() % 4 {
    case 0 where !bytes.isEmpty:
        bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(1 << (rng.next() % 8))
    case 1 where !bytes.isEmpty:
        bytes.removeLast(1 + Int(rng.next() % UInt64(min(bytes.count, 6))))
    case 2:
        bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: Int(rng.next() % UInt64(bytes.count + 1)))
    default:
        if bytes.count > 2 { bytes[Int(rng.next() % UInt64(bytes.count))] = 0xFF }
    }
    return bytes
}
