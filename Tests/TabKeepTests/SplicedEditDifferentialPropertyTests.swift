import TabKeepTestSupport
import Testing

@testable import TabKeep

/// The spliced edit (narrow edits applied to a document's bytes, only the named tabs' entries and
/// the clear decoded) against its slow twin (the whole document decoded, the edits applied, the
/// document encoded), over random documents (replicas editing and syncing, clears, a rename) and
/// random lists of edits, valid and not: the same bytes, the same dots gone and new, the same
/// replica afterwards and the same error; no splice of a catalog with renames or of a wide edit;
/// and no splice at all of mutated bytes the full decoder refuses.
@Suite("Spliced edits against the full path")
struct SplicedEditDifferentialPropertyTests {
    static let plainCatalog = try! Catalog(tabs: randomCatalog.tabs)

    /// A narrow edit of any kind, of any tab (one the catalog lacks too), sometimes an invalid one.
    static func narrowEdit(_ rng: inout SplitMix64, catalog: Catalog) -> TabBarEdit {
        let ids = catalog.tabs.map(\.id) + [tab("nope")]
        let id = ids.randomElement(using: &rng)!
        switch rng.next() % 7 {
        case 0: return .setHidden(id, rng.next() % 2 == 0)
        case 1: return .setCustomizableFlag(id, rng.next() % 2 == 0)
        case 2: return .setBadge(id, Int(rng.next() % 12) - 1)
        case 3, 4: return .addToBadge(id, Int(rng.next() % 15) - 7)
        case 5: return .clearBadge(id)
        default: return .setBadgeText(id, rng.next() % 3 == 0 ? nil : "n\(rng.next() % 100)")
        }
    }

    /// What the full path makes of `edits` on the document `bytes`: the new document, or the error.
    static func fullPath(_ edits: [TabBarEdit], _ bytes: [UInt8], catalog: Catalog, replica: inout Replica)
        throws -> Result<TabBarDocument, EditError>
    {
        var document = try TabBarDocument(decoding: bytes)
        var writer = replica
        do throws(EditError) {
            for edit in edits { try document.apply(edit, catalog: catalog, by: &writer) }
        } catch {
            return .failure(error)
        }
        replica = writer
        return .success(document)
    }

    static func spliced(_ edits: [TabBarEdit], _ bytes: [UInt8], catalog: Catalog, replica: inout Replica)
        -> Result<SplicedEdit.Outcome?, EditError>
    {
        bytes.withUnsafeBufferPointer { buffer in
            do throws(EditError) {
                return .success(try SplicedEdit.apply(edits, to: buffer, catalog: catalog, by: &replica))
            } catch {
                return .failure(error)
            }
        }
    }

    static func unique(_ dots: [Dot]) -> Set<Dot> { Set(dots) }

    @Test func splicedAndFullPathsAgreeOnEveryNarrowEdit() throws {
        var counts = (spliced: 0, unchanged: 0, refused: 0, renames: 0, wide: 0)
        for seed in propertySeeds(one: "TABKEEP_SPLICE_SEED", many: "TABKEEP_SPLICE_SEEDS", defaultCount: 40)
        {
            let replay = replayLine(
                seed: UInt64(seed), variable: "TABKEEP_SPLICE_SEED", filter: "SplicedEditDifferential")
            var rng = SplitMix64(seed: 0x5B11_CE &+ UInt64(seed))
            for start in randomReplicaDocuments(&rng, steps: 10 + Int(rng.next() % 40)) {
                var document = start
                var replica = simulatedReplica(0x5B1 &+ UInt64(seed), counter: UInt16(rng.next() % 50))
                for _ in 0..<12 {
                    let bytes = document.encoded()
                    let edits = (0...(rng.next() % 3)).map { _ in
                        Self.narrowEdit(&rng, catalog: Self.plainCatalog)
                    }
                    // A catalog with renames, or one wide edit among them: never spliced.
                    var untouched = replica
                    if case .success(nil) = Self.spliced(
                        edits, bytes, catalog: randomCatalog, replica: &untouched)
                    {
                        counts.renames += 1
                    } else {
                        Issue.record("\(edits): spliced with a catalog that has renames — \(replay)")
                    }
                    if case .success(nil) = Self.spliced(
                        edits + [.select(.more)], bytes, catalog: Self.plainCatalog, replica: &untouched)
                    {
                        counts.wide += 1
                    } else {
                        Issue.record("\(edits): spliced with a wide edit — \(replay)")
                    }
                    #expect(untouched == replica, "a refused splice changed the replica — \(replay)")

                    var fullReplica = replica
                    var fastReplica = replica
                    let full = try Self.fullPath(
                        edits, bytes, catalog: Self.plainCatalog, replica: &fullReplica)
                    let fast = Self.spliced(edits, bytes, catalog: Self.plainCatalog, replica: &fastReplica)
                    #expect(fastReplica == fullReplica, "\(edits): replicas differ — \(replay)")
                    switch (full, fast) {
                    case (.failure(let expected), .failure(let error)):
                        #expect(error == expected, "\(edits): errors differ — \(replay)")
                        counts.refused += 1
                    case (.success(let edited), .success(.unchanged?)):
                        #expect(
                            edited == document,
                            "\(edits): unchanged, but the full path changed it — \(replay)")
                        counts.unchanged += 1
                    case (.success(let edited), .success(.spliced(let splicedBytes, let removed, let added)?)):
                        #expect(
                            edited != document,
                            "\(edits): spliced, but the full path changed nothing — \(replay)")
                        #expect(splicedBytes == edited.encoded(), "\(edits): bytes differ — \(replay)")
                        let before = Self.unique(document.dots)
                        let after = Self.unique(edited.dots)
                        #expect(
                            removed == before.subtracting(after).sorted(),
                            "\(edits): removed dots — \(replay)")
                        #expect(
                            added == after.subtracting(before).sorted(), "\(edits): added dots — \(replay)")
                        #expect(removed == removed.sorted() && added == added.sorted())
                        counts.spliced += 1
                        document = edited
                    default:
                        Issue.record("\(edits): full path \(full), spliced \(fast) — \(replay)")
                    }
                    replica = fullReplica
                }
            }
        }
        // Every outcome was compared many times, or the property says little.
        #expect(
            counts.spliced > 1_000 && counts.unchanged > 50 && counts.refused > 200,
            "spliced \(counts.spliced), unchanged \(counts.unchanged), refused \(counts.refused)")
    }

    /// A dot two entries hold (the decoder lets it through; `verify` reports it) stays indexed
    /// while one of them still holds it, as the full path's dot lists keep it.
    @Test func aDotTwoEntriesHoldStaysWhileOneStillHoldsIt() throws {
        var replica = simulatedReplica(0xD07)
        var document = try applying(
            [.setHidden(tab("d"), true), .setBadgeText(tab("a"), "x")], to: TabBarDocument(),
            catalog: Self.plainCatalog, by: &replica)
        var entries = document.storage
        entries[0].dot = entries[1].dot
        document = TabBarDocument(sorted: entries)
        let bytes = document.encoded()
        let lists: [[TabBarEdit]] = [
            [.setHidden(tab("d"), false)], [.setHidden(tab("d"), false), .setBadgeText(tab("a"), nil)],
        ]
        for edits in lists {
            var fastReplica = replica
            var fullReplica = replica
            let full = try Self.fullPath(edits, bytes, catalog: Self.plainCatalog, replica: &fullReplica)
            guard case .success(let edited) = full,
                case .success(.spliced(let splicedBytes, let removed, let added)?) = Self.spliced(
                    edits, bytes, catalog: Self.plainCatalog, replica: &fastReplica)
            else {
                Issue.record("\(edits): not spliced")
                continue
            }
            #expect(splicedBytes == edited.encoded())
            let before = Self.unique(document.dots)
            let after = Self.unique(edited.dots)
            #expect(removed == before.subtracting(after).sorted(), "\(edits): removed \(removed)")
            #expect(added == after.subtracting(before).sorted(), "\(edits): added \(added)")
        }
    }

    /// Bytes the full decoder refuses are never spliced (the full path then reports them); mutated
    /// bytes it still accepts are spliced as the full path edits them.
    @Test func mutatedBytesAreSplicedOnlyWhereTheFullDecoderAcceptsThem() throws {
        var refused = 0
        var accepted = 0
        for seed in propertySeeds(one: "TABKEEP_SPLICE_SEED", many: "TABKEEP_SPLICE_SEEDS", defaultCount: 40)
        {
            let replay = replayLine(
                seed: UInt64(seed), variable: "TABKEEP_SPLICE_SEED", filter: "SplicedEditDifferential")
            var rng = SplitMix64(seed: 0xBAD5_11CE &+ UInt64(seed))
            for document in randomReplicaDocuments(&rng, steps: 10 + Int(rng.next() % 40)) {
                let valid = document.encoded()
                for _ in 0..<8 {
                    let bytes = mutatedDocumentBytes(valid, &rng)
                    let edits = [Self.narrowEdit(&rng, catalog: Self.plainCatalog)]
                    let replica = simulatedReplica(0xBAD &+ UInt64(seed))
                    var fastReplica = replica
                    let fast = Self.spliced(edits, bytes, catalog: Self.plainCatalog, replica: &fastReplica)
                    guard (try? TabBarDocument(decoding: bytes)) != nil else {
                        if case .success(nil) = fast {
                        } else {
                            Issue.record("\(edits): refused bytes gave \(fast) — \(replay)")
                        }
                        #expect(fastReplica == replica, "refused bytes changed the replica — \(replay)")
                        refused += 1
                        continue
                    }
                    var fullReplica = replica
                    let full = try Self.fullPath(
                        edits, bytes, catalog: Self.plainCatalog, replica: &fullReplica)
                    switch (full, fast) {
                    case (.failure(let expected), .failure(let error)): #expect(error == expected)
                    case (.success(let edited), .success(.spliced(let splicedBytes, _, _)?)):
                        #expect(splicedBytes == edited.encoded(), "\(edits): bytes differ — \(replay)")
                    case (.success(let edited), .success(.unchanged?)):
                        #expect(edited.encoded() == bytes, "\(edits): unchanged differs — \(replay)")
                    default: Issue.record("\(edits): full path \(full), spliced \(fast) — \(replay)")
                    }
                    #expect(fastReplica == fullReplica, "\(edits): replicas differ — \(replay)")
                    accepted += 1
                }
            }
        }
        #expect(refused > 500 && accepted > 100, "refused \(refused), accepted \(accepted)")
    }
}
