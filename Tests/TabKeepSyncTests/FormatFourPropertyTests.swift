import Foundation
import TabKeepTestSupport
import Testing

@testable import TabKeep
@testable import TabKeepSync

/// Sync format 4 (the exchange that skips what both sides agree on) against its slow twin,
/// format 3 (every profile in every message, every section applied): the same random stores,
/// copied byte for byte, run one exchange each way, with the reply sound or mutated, and must
/// end with the same documents and vectors, the same changes and findings, the same refusals.
/// Also: the two encodings of one message read alike, bytes flipped or not.
@Suite struct FormatFourPropertyTests {
    /// `TABKEEP_FORMAT4_SEED=N swift test --filter FormatFourPropertyTests` replays one seed.
    static let seeds = propertySeeds(
        one: "TABKEEP_FORMAT4_SEED", many: "TABKEEP_FORMAT4_SEEDS", defaultCount: 16)

    /// The random stores of the bulk differential tests.
    let bulk = BulkSyncDifferentialPropertyTests()

    /// A byte-for-byte copy of `store` at `name`: the same replica id, documents and vectors.
    func twin(_ store: TabKeepStore, _ directory: TemporaryDirectory, _ name: String) throws -> TabKeepStore {
        try FileManager.default.createDirectory(
            atPath: directory.sub(name), withIntermediateDirectories: true)
        try store.environment.backup(to: directory.sub(name))
        return try directory.store(name)
    }

    /// What can be done to a reply in flight (kept valid as a message; only its claims change).
    enum Mutation: CaseIterable {
        case none
        /// A section's base past what the receiver holds: the whole message is refused.
        case baseAhead
        /// A section claims the receiver's own replica past what it issued: a finding.
        case claimsReceiver
        /// A section left out: its profile waits for the next exchange.
        case sectionDropped
        /// A section's vector raised past its documents (an over-claim of a third replica).
        case vectorAhead
        /// A section that agreed with the request now claims, in its vector and its base, a
        /// replica the receiver has not heard of: refused, unchanged or not.
        case agreedAhead
    }

    func mutate(_ reply: inout SyncMessage, _ mutation: Mutation, receiver: ReplicaID, _ pick: Int) {
        guard !reply.sections.isEmpty else { return }
        let index = pick % reply.sections.count
        switch mutation {
        case .none: break
        case .baseAhead: reply.sections[index].base[ReplicaID(rawValue: 0xBAD)] = 9
        case .claimsReceiver:
            reply.sections[index].vector[receiver] = reply.sections[index].vector[receiver] + 50
        case .sectionDropped: reply.sections.remove(at: index)
        case .vectorAhead: reply.sections[index].vector[ReplicaID(rawValue: 0xFA4E)] = 7
        case .agreedAhead:
            let agreed = reply.sections.indices.filter {
                reply.sections[$0].documents.isEmpty && reply.sections[$0].vector == reply.sections[$0].base
            }
            guard !agreed.isEmpty else { return }
            let chosen = agreed[pick % agreed.count]
            reply.sections[chosen].vector[ReplicaID(rawValue: 0xA6EE)] = 3
            reply.sections[chosen].base = reply.sections[chosen].vector
        }
    }

    /// One exchange from `requester` to `replier` and back, the request in format 4 or (with
    /// `old`) 3, the reply mutated; what happened, as comparable text.
    func exchange(
        _ requester: TabKeepStore, _ replier: TabKeepStore, old: Bool, _ mutation: Mutation, pick: Int
    ) -> String {
        exchange(requester, replier, format: old ? 3 : 4) { reply in
            mutate(&reply, mutation, receiver: requester.replicaID, pick)
        }
    }

    /// One exchange from `requester` to `replier` and back, the request in `format` (5, 4 or 3),
    /// `inFlight` run on the reply before it is encoded; what happened, as comparable text.
    func exchange(
        _ requester: TabKeepStore, _ replier: TabKeepStore, format: UInt8,
        inFlight: (inout SyncMessage) throws -> Void
    ) -> String {
        do {
            let asking = SyncSession(store: requester)
            var request = try asking.request()
            if format < 5 { request.requesterRevision = nil }
            if format < 4 { request.omitsUnchanged = false }
            let requestBytes = request.encoded()
            guard requestBytes[4] == format else { return "request in format \(requestBytes[4])" }
            var found: [OverClaim] = []
            var reply = try SyncSession(store: replier).respond(
                to: SyncMessage(decoding: requestBytes), reporting: &found)
            try inFlight(&reply)
            let replyBytes = reply.encoded()
            guard replyBytes[4] == format else { return "reply in format \(replyBytes[4])" }
            let receipt = try asking.receive(SyncMessage(decoding: replyBytes))
            guard let final = receipt.reply else { return "no final" }
            let finalBytes = final.encoded()
            guard finalBytes[4] == min(format, 4) else { return "final in format \(finalBytes[4])" }
            let second = try SyncSession(store: replier).receive(SyncMessage(decoding: finalBytes))
            return """
                replier found \(found); requester changed \(receipt.changed.sorted()), found \
                \(receipt.overClaims), untrusted; replier changed \(second.changed.sorted()), \
                found \(second.overClaims)
                """
        } catch {
            return "refused: \(error)"
        }
    }

    /// Documents and vectors of a store, as comparable values.
    func state(_ store: TabKeepStore) throws -> String {
        let documents = try documentBytes(store).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        let vectors = try store.versionVectors().sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        return (documents + vectors).joined(separator: "\n")
    }

    @Test(arguments: seeds) func aFormatFourExchangeEndsWhereAFormatThreeOneDoes(seed: Int) throws {
        let directory = TemporaryDirectory()
        var random = SplitMix64(seed: UInt64(seed) &+ 0xF04)
        let stores = try bulk.randomStores(&random, in: directory, seed: seed)
        let replay = replayLine(
            seed: UInt64(seed), variable: "TABKEEP_FORMAT4_SEED", filter: "FormatFourPropertyTests")
        for (round, mutation) in Mutation.allCases.enumerated() {
            let (first, second) = (Int(random.next() % 3), Int(random.next() % 3))
            guard first != second else { continue }
            let pick = Int(random.next() % 1_000)
            let fast = try (
                twin(stores[first], directory, "f\(round)a"), twin(stores[second], directory, "f\(round)b")
            )
            let slow = try (
                twin(stores[first], directory, "s\(round)a"), twin(stores[second], directory, "s\(round)b")
            )
            let fastOutcome = exchange(fast.0, fast.1, old: false, mutation, pick: pick)
            let slowOutcome = exchange(slow.0, slow.1, old: true, mutation, pick: pick)
            #expect(try state(fast.0) == state(slow.0), "\(mutation), requester: \(replay)")
            if mutation == .vectorAhead && fastOutcome != slowOutcome {
                // The one known difference: the requester takes the forged vector; a format-3
                // final then carries that profile past it and the replier refuses the whole
                // final (history it lacks), where a format-4 final, agreeing on that profile,
                // leaves it out and the rest lands.
                #expect(slowOutcome.hasPrefix("refused") && slowOutcome.contains("fa4e"), "\(replay)")
                #expect(!fastOutcome.hasPrefix("refused"), "\(replay)")
                continue
            }
            #expect(fastOutcome == slowOutcome, "\(mutation): \(replay)")
            #expect(try state(fast.1) == state(slow.1), "\(mutation), replier: \(replay)")
            // The exchange goes on in the stores themselves, so later rounds start from synced,
            // partly repaired stores.
            _ = exchange(stores[first], stores[second], old: false, mutation, pick: pick)
        }
    }

    @Test(arguments: seeds) func aFormatFourFinalIsTheFormatThreeOneWithoutTheAgreedProfiles(seed: Int) throws
    {
        let directory = TemporaryDirectory()
        var random = SplitMix64(seed: UInt64(seed) &+ 0xF1A)
        let stores = try bulk.randomStores(&random, in: directory, seed: seed)
        let replay = replayLine(
            seed: UInt64(seed), variable: "TABKEEP_FORMAT4_SEED", filter: "FormatFourPropertyTests")
        let (requester, replier) = (stores[0], stores[1])
        var request = try SyncSession(store: requester).request()
        request.requesterRevision = nil
        let reply = try SyncSession(store: replier).respond(to: request)
        #expect(reply.omitsUnchanged, "\(replay)")
        var old = reply
        old.omitsUnchanged = false
        let fast = try twin(requester, directory, "fast")
        let slow = try twin(requester, directory, "slow")
        let fastReceipt = try SyncSession(store: fast).receive(SyncMessage(decoding: reply.encoded()))
        let slowReceipt = try SyncSession(store: slow).receive(SyncMessage(decoding: old.encoded()))
        let untrusted = Set(slowReceipt.overClaims.map(\.profile))
        let expected = slowReceipt.reply!.sections.filter {
            !($0.vector == $0.base && $0.documents.isEmpty) || untrusted.contains($0.profile)
        }
        #expect(fastReceipt.reply!.sections == expected, "\(replay)")
        #expect(fastReceipt.changed == slowReceipt.changed, "\(replay)")
        #expect(fastReceipt.reply!.sections.count <= slowReceipt.reply!.sections.count, "\(replay)")
    }

    @Test func theTwoEncodingsOfAMessageReadAlikeFlippedOrNot() throws {
        let directory = TemporaryDirectory()
        var random = SplitMix64(seed: 0xF0F0)
        let stores = try bulk.randomStores(&random, in: directory, seed: 99)
        var message = try SyncSession(store: stores[1]).respond(to: SyncSession(store: stores[0]).request())
        message.omitsUnchanged = true
        message.requesterRevision = nil
        var three = message
        three.omitsUnchanged = false
        let (fourBytes, threeBytes) = (message.encoded(), three.encoded())
        #expect(fourBytes[4] == 4 && threeBytes[4] == 3)
        #expect(Array(fourBytes[5...].dropLast(4)) == Array(threeBytes[5...].dropLast(4)), "one layout")
        let messages = BadInputTests()
        for round in 0..<3_000 {
            var (four, old) = (Array(fourBytes.dropLast(4)), Array(threeBytes.dropLast(4)))
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let at = 5 + Int(random.next() % UInt64(four.count - 5))
                let value = UInt8(truncatingIfNeeded: random.next())
                (four[at], old[at]) = (value, value)
            }
            let decodedFour = Result { () throws(SyncError) in
                try SyncMessage(decoding: messages.sealed(four))
            }
            let decodedOld = Result { () throws(SyncError) in try SyncMessage(decoding: messages.sealed(old))
            }
            switch (decodedFour, decodedOld) {
            case (.success(var fast), .success(let slow)):
                #expect(fast.omitsUnchanged && !slow.omitsUnchanged, "round \(round)")
                fast.omitsUnchanged = false
                #expect(fast == slow, "round \(round)")
            case (.failure(let fast), .failure(let slow)):
                #expect(fast == slow, "round \(round)")
            default:
                Issue.record(
                    "round \(round): \(decodedFour) against \(decodedOld), \(replayLine(seed: 0xF0F0, filter: "FormatFourPropertyTests"))"
                )
            }
        }
    }

    @Test func aFormatTwoOrThreeRequestIsAnsweredInFormatThreeWithEveryProfile() throws {
        let directory = TemporaryDirectory()
        let (a, b) = (try directory.store("a"), try directory.store("b"))
        try a.edit(profile("alice"), catalog: letterTabs, .setBadge(tab("a"), 3))
        try a.edit(profile("bob"), catalog: letterTabs, .setBadge(tab("b"), 1))
        try sync(a, b)
        try a.edit(profile("alice"), catalog: letterTabs, .setBadge(tab("c"), 2))
        let request = try SyncSession(store: b).request()
        for format: UInt8 in [2, 3] {
            let old = try SyncMessage(decoding: request.encoded(format: format))
            #expect(!old.omitsUnchanged)
            let reply = try SyncSession(store: a).respond(to: old)
            #expect(reply.encoded()[4] == 3, "format \(format)")
            #expect(reply.sections.map(\.profile) == [profile("alice"), profile("bob")])
        }
        // A format-4 exchange: the reply lists both, the final neither (b now agrees on both).
        var four = request
        four.requesterRevision = nil
        let reply = try SyncSession(store: a).respond(to: SyncMessage(decoding: four.encoded()))
        #expect(reply.encoded()[4] == 4)
        #expect(reply.sections.map(\.profile) == [profile("alice"), profile("bob")])
        // A format-5 exchange: the reply lists only alice, where the two differ.
        let five = try SyncSession(store: a).respond(to: SyncMessage(decoding: request.encoded()))
        #expect(five.encoded()[4] == 5)
        #expect(five.sections.map(\.profile) == [profile("alice")])
        let receipt = try SyncSession(store: b).receive(SyncMessage(decoding: reply.encoded()))
        #expect(receipt.reply?.sections.isEmpty == true)
        #expect(receipt.reply?.encoded()[4] == 4)
        #expect(try documentBytes(a) == documentBytes(b))
    }
}
