import TabKeepTestSupport
import Testing

@testable import TabKeep

/// The spliced merge (a peer's delta merged into a document's bytes, only the entries of the keys
/// it holds and the clear decoded) against its slow twin (the whole document decoded, merged and
/// encoded), over random documents of replicas editing and syncing (clears and renames among
/// them) and random deltas between them: the same bytes, the same dots gone and new, the same
/// "nothing changed"; no splice where the delta brings a clear the document does not hold, and
/// no splice at all of mutated bytes the full decoder refuses. Also the part of a document's bytes
/// a peer lacks against the part of the decoded document.
@Suite("Spliced merges against the full path")
struct SplicedMergeDifferentialPropertyTests {
    /// Runs `body` once per seed (`TABKEEP_MERGE_SEED` one, `TABKEEP_MERGE_SEEDS` how many, 150
    /// by default) with a generator seeded from it and `salt`, and the line that replays it.
    static func eachSeed(salt: UInt64, _ body: (inout SplitMix64, String) throws -> Void) rethrows {
        for seed in propertySeeds(one: "TABKEEP_MERGE_SEED", many: "TABKEEP_MERGE_SEEDS", defaultCount: 150) {
            let replay = replayLine(
                seed: UInt64(seed), variable: "TABKEEP_MERGE_SEED", filter: "SplicedMergeDifferential")
            var rng = SplitMix64(seed: salt &+ UInt64(seed))
            try body(&rng, replay)
        }
    }

    static func spliced(_ incoming: TabBarDocument, into bytes: [UInt8]) -> SplicedEdit.Outcome? {
        bytes.withUnsafeBufferPointer { SplicedEdit.merge(incoming, into: $0) }
    }

    /// What a peer holding `document` sends a store whose vector is random below `document`'s own:
    /// the delta a sync computes (the clear included), or the whole document.
    static func delta(of document: TabBarDocument, _ rng: inout SplitMix64) -> TabBarDocument {
        if rng.next() % 4 == 0 { return document }
        var vector = VersionVector()
        for dot in document.dots where rng.next() % 3 != 0 {
            vector[dot.replica] = max(vector[dot.replica], dot.sequence - min(dot.sequence, rng.next() % 3))
        }
        return TabKeepStore.part(of: document, after: vector)
    }

    /// Whether `document` holds a clear that `other` does not hold as it is.
    static func bringsAnotherClear(_ document: TabBarDocument, to other: TabBarDocument) -> Bool {
        guard let clear = document.storage.last, clear.key == .cleared else { return false }
        return other.storage.last != clear
    }

    @Test func splicedAndFullMergesAgreeOnEveryDelta() throws {
        var counts = (spliced: 0, unchanged: 0, otherClear: 0)
        Self.eachSeed(salt: 0x3E_26E) { rng, replay in
            let documents = randomReplicaDocuments(&rng, steps: 10 + Int(rng.next() % 60))
            for stored in documents {
                let bytes = stored.encoded()
                for source in documents + [TabBarDocument()] {
                    for _ in 0..<4 {
                        let incoming = Self.delta(of: source, &rng)
                        let full = stored.merging(incoming)
                        let fast = Self.spliced(incoming, into: bytes)
                        guard !Self.bringsAnotherClear(incoming, to: stored) else {
                            #expect(fast == nil, "a delta with another clear was spliced — \(replay)")
                            counts.otherClear += 1
                            continue
                        }
                        switch fast {
                        case .unchanged?:
                            #expect(full == stored, "unchanged, but the full merge changed it — \(replay)")
                            counts.unchanged += 1
                        case .spliced(let splicedBytes, let removed, let added)?:
                            #expect(full != stored, "spliced, but the full merge changed nothing — \(replay)")
                            #expect(splicedBytes == full.encoded(), "bytes differ — \(replay)")
                            let (was, now) = (Set(stored.dots), Set(full.dots))
                            #expect(removed == was.subtracting(now).sorted(), "removed dots — \(replay)")
                            #expect(added == now.subtracting(was).sorted(), "added dots — \(replay)")
                            counts.spliced += 1
                        case nil:
                            Issue.record("not spliced: \(incoming.entries.count) entries — \(replay)")
                        }
                    }
                }
            }
        }
        // Every outcome was compared many times, or the property says little.
        #expect(
            counts.spliced > 800 && counts.unchanged > 400 && counts.otherClear > 50,
            "spliced \(counts.spliced), unchanged \(counts.unchanged), other clear \(counts.otherClear)")
    }

    /// One new entry, as a sync of one edit brings it: spliced into a document of any size, the
    /// entry it supersedes replaced and its dot gone.
    @Test func oneEditOfAPeerIsSplicedInPlaceOfTheEntryItSupersedes() throws {
        let catalog = try Catalog(tabs: randomCatalog.tabs)
        var phone = simulatedReplica(0xA1)
        var tablet = simulatedReplica(0xB2)
        let shared = try applying(
            [.setBadge(tab("a"), 3), .setHidden(tab("d"), true), .setBadgeText(tab("f"), "new")],
            to: TabBarDocument(), catalog: catalog, by: &phone)
        let edited = try applying(
            [.setBadgeText(tab("f"), "later")], to: shared, catalog: catalog, by: &tablet)
        var vector = VersionVector()
        for dot in shared.dots { vector[dot.replica] = max(vector[dot.replica], dot.sequence) }
        let delta = TabKeepStore.part(of: edited, after: vector)
        #expect(delta.entries.count == 1)
        guard case .spliced(let bytes, let removed, let added)? = Self.spliced(delta, into: shared.encoded())
        else {
            Issue.record("not spliced")
            return
        }
        #expect(bytes == edited.encoded())
        let old = shared.entries.first { $0.key == .badgeText(tab("f")) }!.dot
        #expect(removed == [old])
        #expect(added == [delta.entries[0].dot])
        // The same delta again changes nothing.
        #expect(Self.spliced(delta, into: bytes) == .unchanged)
    }

    /// The part of a document's bytes a peer lacks (what a sync reply carries) against the part of
    /// the decoded document, over random documents and vectors below, at and past them; bytes the
    /// full decoder refuses give none.
    @Test func partsTakenFromTheBytesEqualThoseOfTheDecodedDocument() throws {
        var compared = (empty: 0, some: 0, refused: 0)
        Self.eachSeed(salt: 0x9A27) { rng, replay in
            for document in randomReplicaDocuments(&rng, steps: 10 + Int(rng.next() % 60)) {
                let bytes = document.encoded()
                for _ in 0..<6 {
                    var vector = VersionVector()
                    for dot in document.dots where rng.next() % 3 != 0 {
                        let sequence = dot.sequence + 2 - min(dot.sequence + 1, rng.next() % 5)
                        vector[dot.replica] = max(vector[dot.replica], sequence)
                    }
                    let expected = TabKeepStore.part(of: document, after: vector)
                    let part = bytes.withUnsafeBufferPointer { SplicedEdit.part(of: $0, after: vector) }
                    #expect(part == expected, "parts differ — \(replay)")
                    if expected.isEmpty { compared.empty += 1 } else { compared.some += 1 }
                    var mutated = bytes
                    mutated[Int(rng.next() % UInt64(mutated.count))] ^= UInt8(1 << (rng.next() % 8))
                    let fromMutated = mutated.withUnsafeBufferPointer {
                        SplicedEdit.part(of: $0, after: vector)
                    }
                    if let decoded = try? TabBarDocument(decoding: mutated) {
                        #expect(
                            fromMutated == TabKeepStore.part(of: decoded, after: vector),
                            "parts of accepted mutated bytes differ — \(replay)")
                    } else {
                        #expect(fromMutated == nil, "a part of bytes the full decoder refuses — \(replay)")
                        compared.refused += 1
                    }
                }
            }
        }
        #expect(
            compared.empty > 100 && compared.some > 500 && compared.refused > 150,
            "empty \(compared.empty), some \(compared.some), refused \(compared.refused)")
    }

    /// Bytes the full decoder refuses are never spliced (the full path then reports them); mutated
    /// bytes it still accepts are merged as the full path merges them.
    @Test func mutatedBytesAreSplicedOnlyWhereTheFullDecoderAcceptsThem() throws {
        var refused = 0
        var accepted = 0
        Self.eachSeed(salt: 0xBAD_3E26E) { rng, replay in
            let documents = randomReplicaDocuments(&rng, steps: 10 + Int(rng.next() % 40))
            for document in documents {
                let valid = document.encoded()
                for _ in 0..<8 {
                    let bytes = mutatedDocumentBytes(valid, &rng)
                    let incoming = Self.delta(of: documents.randomElement(using: &rng)!, &rng)
                    let fast = Self.spliced(incoming, into: bytes)
                    guard let decoded = try? TabBarDocument(decoding: bytes) else {
                        #expect(fast == nil, "spliced bytes the full decoder refuses — \(replay)")
                        refused += 1
                        continue
                    }
                    accepted += 1
                    guard fast != nil || Self.bringsAnotherClear(incoming, to: decoded) else {
                        Issue.record("accepted bytes not spliced — \(replay)")
                        continue
                    }
                    #expect(
                        bytes.withUnsafeBufferPointer { SplicedEdit.mergeAgrees($0, incoming, fast) },
                        "the spliced merge disagrees with the full one — \(replay)")
                }
            }
        }
        #expect(refused > 500 && accepted > 20, "refused \(refused), accepted \(accepted)")
    }
}
