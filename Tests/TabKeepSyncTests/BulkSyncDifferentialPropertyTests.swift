@testable import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

/// The bulk sync paths against their general twins: a `VersionVector` against a dictionary of
/// replicas, a store-wide delta (one walk of `versions`, matched with the peer's vectors in order)
/// against a delta computed document by document from the public API, and one delta applied at
/// once (its vectors read by one walk) against the same delta applied section by section (a range
/// read each). Random stores and vectors, valid and past what the receiver holds.
@Suite struct BulkSyncDifferentialPropertyTests {
    /// The seeds of the store tests: `TABKEEP_BULK_SEED=N` replays one, `TABKEEP_BULK_SEEDS=N` runs N.
    static let seeds = propertySeeds(one: "TABKEEP_BULK_SEED", many: "TABKEEP_BULK_SEEDS", defaultCount: 12)

    /// How a failing test is run again alone: the vector test has one fixed seed.
    static let vectorReplay = replayLine(seed: 0x7EC7, filter: "BulkSyncDifferentialPropertyTests")

    static func replay(_ seed: Int) -> String {
        replayLine(
            seed: UInt64(seed), variable: "TABKEEP_BULK_SEED", filter: "BulkSyncDifferentialPropertyTests")
    }

    @Test func aVersionVectorBehavesLikeADictionaryOfReplicas() {
        var random = SplitMix64(seed: 0x7EC7)
        for round in 0..<400 {
            var vector = VersionVector()
            var model: [ReplicaID: UInt64] = [:]
            for _ in 0..<Int(random.next() % 24) {
                let replica = ReplicaID(rawValue: 1 + random.next() % 9)
                switch random.next() % 4 {
                case 0, 1:
                    let sequence = random.next() % 5  // zero included: it removes the replica
                    vector[replica] = sequence
                    model[replica] = sequence == 0 ? nil : sequence
                case 2:
                    let dot = Dot(replica: replica, sequence: 1 + random.next() % 6)
                    #expect(
                        vector.contains(dot) == (dot.sequence <= model[replica] ?? 0),
                        "round \(round), \(Self.vectorReplay)")
                default:
                    var otherModel: [ReplicaID: UInt64] = [:]
                    for _ in 0..<Int(random.next() % 5) {
                        otherModel[ReplicaID(rawValue: 1 + random.next() % 9)] = random.next() % 7
                    }
                    vector.merge(VersionVector(otherModel))
                    for (replica, sequence) in otherModel where sequence > model[replica] ?? 0 {
                        model[replica] = sequence
                    }
                }
                #expect(vector.replicas == model.keys.sorted(), "round \(round), \(Self.vectorReplay)")
                #expect(
                    vector.replicas.allSatisfy { vector[$0] == model[$0] },
                    "round \(round), \(Self.vectorReplay)")
                #expect(vector.isEmpty == model.isEmpty, "round \(round), \(Self.vectorReplay)")
                let rebuilt = VersionVector(model)
                #expect(
                    vector == rebuilt && vector.hashValue == rebuilt.hashValue,
                    "round \(round), \(Self.vectorReplay)")
            }
        }
    }

    /// Three stores edited by random edits and partly synced, so profiles hold entries of several
    /// replicas, some bars erased, and the stores differ.
    func randomStores(_ random: inout SplitMix64, in directory: TemporaryDirectory, seed: Int) throws
        -> [TabKeepStore]
    {
        let stores = try (0..<3).map { try directory.store("s\(seed)-\($0)") }
        let profiles = (0..<40).map { profile("p\($0 * 7 % 40)") }
        // Up to six bars a profile: more records before its versions than a walk steps over
        // (`RecordSpaces.steppedSkips`), so the walks both step and seek.
        let bars = [BarID.main, try BarID("side")] + (try ["t1", "t2", "t3", "t4"].map { try BarID($0) })
        for step in 0..<160 {
            let store = stores[Int(random.next() % 3)]
            let user = profiles[Int(random.next() % UInt64(profiles.count))]
            let bar = bars[Int(random.next() % (random.next() % 3 == 0 ? 6 : 2))]
            let tabName = ["a", "b", "c", "d", "e", "f", "g"][Int(random.next() % 7)]
            switch random.next() % 6 {
            case 0:
                // A move past the shown tabs is refused: that is fine, the next step goes on.
                try? store.edit(
                    user, bar: bar, catalog: letterTabs, .move(tab(tabName), to: Int(random.next() % 4)))
            case 1: try store.edit(user, bar: bar, catalog: letterTabs, .addToBadge(tab(tabName), 1))
            case 2:
                try store.edit(user, bar: bar, catalog: letterTabs, .setHidden(tab(tabName), step % 2 == 0))
            case 3 where step % 5 == 0: try store.reset(user, bar: bar)
            case 4 where step % 7 == 0:
                let (first, second) = (Int(random.next() % 3), Int(random.next() % 3))
                if first != second {
                    try sync(
                        stores[first], stores[second], profiles: Set(profiles.prefix(Int(random.next() % 40)))
                    )
                }
            default: try store.edit(user, bar: bar, catalog: letterTabs, .setBadge(tab(tabName), step % 9))
            }
        }
        return stores
    }

    /// Peer vectors made from a store's own: some profiles dropped, sequences moved up and down,
    /// unknown replicas and profiles the store lacks added.
    func perturbed(_ vectors: [ProfileID: VersionVector], _ random: inout SplitMix64) -> [ProfileID:
        VersionVector]
    {
        var result: [ProfileID: VersionVector] = [:]
        for (profile, vector) in vectors where random.next() % 5 != 0 {
            var changed = vector
            for replica in vector.replicas where random.next() % 3 == 0 {
                let sequence = vector[replica]
                changed[replica] = random.next() % 2 == 0 ? sequence / 2 : sequence + 3
            }
            if random.next() % 6 == 0 { changed[ReplicaID(rawValue: 0xFEED)] = 4 }
            result[profile] = changed
        }
        for index in 0..<Int(random.next() % 4) {
            result[profile("lacking-\(index)")] = VersionVector([ReplicaID(rawValue: 77): 2])
        }
        return result
    }

    /// The delta the way it was found before the bulk path, profile by profile: each vector read
    /// on its own, the peer's looked up by profile, every document of the profile reduced to its
    /// part past that base.
    func referenceDelta(
        _ store: TabKeepStore, after peer: [ProfileID: VersionVector], scope: ProfileScope,
        includeUnchanged: Bool
    ) throws -> [ProfileDelta] {
        let held = try store.versionVectors(scope).keys
        let profiles = Set(held).union(peer.keys.filter { scope.contains($0) }).sorted()
        return try profiles.compactMap { profile in
            let now = try store.versionVectors(.only([profile]))[profile] ?? VersionVector()
            let base = peer[profile] ?? VersionVector()
            if now == base && !includeUnchanged { return nil }
            // Where the store's vector is past the peer's somewhere, every document of the
            // profile, erased bars (a clear alone) included.
            var bars: [BarID] = []
            if now.replicas.contains(where: { now[$0] > base[$0] }) {
                try store.forEachDocument { key, _ in
                    if key.profile == profile { bars.append(key.bar) }
                }
            }
            let documents = try bars.sorted().compactMap { bar -> DocumentDelta? in
                guard let document = try store.document(profile, bar: bar) else { return nil }
                let part = TabKeepStore.part(of: document, after: base)
                return part.isEmpty
                    ? nil : DocumentDelta(key: DocumentKey(profile: profile, bar: bar), document: part)
            }
            return ProfileDelta(profile: profile, vector: now, base: base, documents: documents)
        }
    }

    @Test(arguments: Self.seeds) func aStoreWideDeltaIsTheDeltaOfEachDocument(seed: Int) throws {
        let directory = TemporaryDirectory()
        var random = SplitMix64(seed: UInt64(seed) &+ 0xDE17A)
        let stores = try randomStores(&random, in: directory, seed: seed)
        for store in stores {
            let peer = perturbed(try stores[Int(random.next() % 3)].versionVectors(), &random)
            let only = ProfileScope.only(Set(peer.keys.prefix(10)).union([profile("p3"), profile("nobody")]))
            for scope in [ProfileScope.all, only] {
                for includeUnchanged in [false, true] {
                    let delta = try store.delta(after: peer, scope: scope, includeUnchanged: includeUnchanged)
                    let expected = try referenceDelta(
                        store, after: peer, scope: scope, includeUnchanged: includeUnchanged)
                    #expect(
                        delta.profiles == expected, "\(Self.replay(seed)) scope \(scope) \(includeUnchanged)")
                }
            }
        }
    }

    /// What applying a delta did, as a sentence.
    func outcome(_ result: Result<[DocumentKey], any Error>) -> String {
        switch result {
        case .success(let changed): "applied, \(changed.count) documents changed"
        case .failure(let error): "refused: \(error)"
        }
    }

    @Test(arguments: Self.seeds) func oneDeltaAppliedAtOnceEqualsItAppliedSectionBySection(seed: Int) throws {
        let directory = TemporaryDirectory()
        var random = SplitMix64(seed: UInt64(seed) &+ 0xA991)
        let stores = try randomStores(&random, in: directory, seed: seed)
        let (sender, receiver) = (stores[0], stores[1])
        // Two copies of the receiver: the same documents and vectors.
        let copies = try (0..<2).map { try directory.store("copy\(seed)-\($0)") }
        for copy in copies {
            try copy.apply(try receiver.delta(after: [:], includeUnchanged: true))
        }
        var peer = try copies[0].versionVectors()
        if seed % 3 == 0, let some = peer.keys.sorted().first {
            // A base past what the receiver holds: refused, at once and by that section alone.
            peer[some, default: VersionVector()][ReplicaID(rawValue: 0xBAD)] = 9
        }
        var delta = try sender.delta(after: peer, includeUnchanged: seed % 2 == 0)
        if seed % 4 == 1 { delta.profiles.shuffle(using: &random) }  // out of order: a range read each
        let before = try recordChecksum(copies[0])
        let atOnce = Result { try copies[0].apply(delta) }
        if case .failure(let error) = atOnce {
            guard case .missingHistory = error as? TabKeepError else {
                Issue.record("\(Self.replay(seed)): \(error)")
                return
            }
            #expect(
                try recordChecksum(copies[0]) == before,
                "\(Self.replay(seed)): a refused delta changed the store")
        }
        var refusedSections = 0
        for section in delta.profiles {
            do {
                try copies[1].apply(StoreDelta(profiles: [section]))
            } catch TabKeepError.missingHistory {
                refusedSections += 1
            }
        }
        switch atOnce {
        case .success:
            #expect(refusedSections == 0, "\(Self.replay(seed))")
            #expect(try documentBytes(copies[0]) == documentBytes(copies[1]), "\(Self.replay(seed))")
            #expect(try copies[0].versionVectors() == copies[1].versionVectors(), "\(Self.replay(seed))")
            #expect(try copies[0].verify().isSound, "\(Self.replay(seed))")
        case .failure:
            #expect(refusedSections > 0, "\(Self.replay(seed))")
        }
        if seed % 4 == 1 {
            try expectTheWalkAgrees(
                seed: seed, delta: delta, receiver: receiver, ranged: copies[0],
                rangedOutcome: outcome(atOnce),
                in: directory)
        }
    }

    /// Shuffled, both sides above read a range per section; the same sections in profile order,
    /// applied at once to another copy of the receiver, take the one walk of `versions`
    /// (`readVectors`' rule: sorted, and 16 profiles or more per record), so the two read paths
    /// meet on one delta: same refusal, or same documents and vectors.
    func expectTheWalkAgrees(
        seed: Int, delta: StoreDelta, receiver: TabKeepStore, ranged: TabKeepStore, rangedOutcome: String,
        in directory: TemporaryDirectory
    ) throws {
        let walked = try directory.store("walked\(seed)")
        try walked.apply(try receiver.delta(after: [:], includeUnchanged: true))
        var inOrder = delta
        inOrder.profiles.sort { $0.profile < $1.profile }
        let records = try walked.environment.read { txn in try walked.versionRecordCount(txn) }
        #expect(
            inOrder.profiles != delta.profiles && inOrder.profiles.count * 16 >= records,
            "\(Self.replay(seed)): \(inOrder.profiles.count) sections, \(records) records: not the two paths")
        let before = try recordChecksum(walked)
        let walkedOutcome = outcome(Result { try walked.apply(inOrder) })
        #expect(walkedOutcome == rangedOutcome, "\(Self.replay(seed)): walked and ranged differ")
        if rangedOutcome.hasPrefix("applied") {
            #expect(
                try documentBytes(walked) == documentBytes(ranged),
                "\(Self.replay(seed)): walked and ranged differ")
            #expect(try walked.versionVectors() == ranged.versionVectors(), "\(Self.replay(seed))")
        } else {
            #expect(
                try recordChecksum(walked) == before,
                "\(Self.replay(seed)): a refused delta changed the store")
        }
    }

    /// A store's vectors and digests as one line each, or the refusal.
    func vectorsAndDigests(_ store: TabKeepStore, oneWalk: Bool) -> String {
        do {
            let found = try store.read { txn in
                oneWalk
                    ? try store.readVectorsAndDigestsInOrder(txn, in: .all)
                    : try store.readVectorsAndDigestsByParts(txn, in: .all)
            }
            return found.map { "\($0.profile) \($0.vector) \($0.digest)" }.joined(separator: "\n")
        } catch {
            return "refused: \(error)"
        }
    }

    @Test(arguments: Self.seeds) func vectorsAndDigestsReadInOneWalkEqualTheTwoReads(seed: Int) throws {
        let directory = TemporaryDirectory()
        var random = SplitMix64(seed: UInt64(seed) &+ 0xD16E)
        let stores = try randomStores(&random, in: directory, seed: seed)
        for store in stores {
            let expected = vectorsAndDigests(store, oneWalk: false)
            #expect(expected.split(separator: "\n").count > 10, "\(Self.replay(seed))")
            #expect(vectorsAndDigests(store, oneWalk: true) == expected, "\(Self.replay(seed)) as stored")
        }
        // Records no API writes, put into the tree directly: a document of a profile without a
        // vector, records of unknown kinds before and after the vectors, a key without a
        // profile's end, a document sorting between two profiles' records; then a broken vector.
        let store = stores[0]
        let profiles = try store.versionVectors().keys.sorted()
        let victim = profiles[Int(random.next() % UInt64(profiles.count))]
        let rawKeys: [[UInt8]] = [
            Array("p10-ghost".utf8) + [0, 0x64] + Array("main".utf8),
            Array(victim.rawValue.utf8) + [0, 0x61, 1, 2],
            Array(victim.rawValue.utf8) + [0, 0x7A, 3],
            Array(victim.rawValue.utf8) + [0, 0x64] + Array("zz-late".utf8),
            Array("no-separator".utf8),
        ]
        for (index, key) in rawKeys.enumerated() {
            try store.environment.write { txn in
                try txn.put(store.documents, key: key, value: Array("junk \(index)".utf8))
            }
            let expected = vectorsAndDigests(store, oneWalk: false)
            #expect(!expected.hasPrefix("refused"), "\(Self.replay(seed)) raw record \(index)")
            #expect(
                vectorsAndDigests(store, oneWalk: true) == expected,
                "\(Self.replay(seed)) raw record \(index)")
        }
        let broken = Array(victim.rawValue.utf8) + [0, 0x76] + Array(repeating: 0, count: 7) + [9]
        try store.environment.write { txn in try txn.put(store.documents, key: broken, value: [1, 2, 3]) }
        let refusal = vectorsAndDigests(store, oneWalk: false)
        #expect(refusal.hasPrefix("refused"), "\(Self.replay(seed)) broken vector")
        #expect(vectorsAndDigests(store, oneWalk: true) == refusal, "\(Self.replay(seed)) broken vector")
    }
}
