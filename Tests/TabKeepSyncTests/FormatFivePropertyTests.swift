import Foundation
import LMDBKit
import TabKeepTestSupport
import Testing

@testable import TabKeep
@testable import TabKeepSync

/// Sync format 5 (a reply that leaves out every profile both sides agree on, and a final that
/// answers the profiles the reply lists plus the ones the requester changed since it asked)
/// against its slow twin, format 4 (every profile in the reply): the same random stores, copied
/// byte for byte, one exchange each way with the reply sound, mutated, or an edit made while it
/// is in flight, must end with the same documents and vectors, the same changes, the same
/// findings and the same refusals.
@Suite struct FormatFivePropertyTests {
    /// `TABKEEP_FORMAT5_SEED=N swift test --filter FormatFivePropertyTests` replays one seed.
    static let seeds = propertySeeds(
        one: "TABKEEP_FORMAT5_SEED", many: "TABKEEP_FORMAT5_SEEDS", defaultCount: 16)

    let bulk = BulkSyncDifferentialPropertyTests()
    let four = FormatFourPropertyTests()

    /// What happens while the reply is in flight: one of the format-4 suite's mutations, done to
    /// the same profile's section in both formats, or an edit of a profile the two agreed on (the
    /// format-5 reply has no section of it, so only the requester's change log can say it must
    /// go), with or without the change-log record of that edit lost (a log trimmed past the
    /// request, simulated: the edit then waits for the next exchange).
    enum InFlight: CustomStringConvertible {
        case mutated(FormatFourPropertyTests.Mutation)
        case editedMeanwhile(logTrimmed: Bool)

        static let all: [InFlight] =
            [.none, .baseAhead, .claimsReceiver, .vectorAhead].map { .mutated($0) }
            + [.editedMeanwhile(logTrimmed: false), .editedMeanwhile(logTrimmed: true)]

        var description: String {
            switch self {
            case .mutated(let mutation): "\(mutation)"
            case .editedMeanwhile(let trimmed): trimmed ? "edited meanwhile, log trimmed" : "edited meanwhile"
            }
        }
    }

    /// An edit of `profile` by `store`, and with `trimmed`, the change-log record of the first of
    /// its two revisions removed, as a log trimmed past it would be.
    func editMeanwhile(_ store: TabKeepStore, _ profile: ProfileID, trimmed: Bool) throws {
        let before = try store.lastRevision()
        try store.edit(profile, catalog: letterTabs, [.setBadge(tab("g"), 77)])
        try store.edit(profile, bar: try BarID("side"), catalog: letterTabs, [.setBadge(tab("g"), 78)])
        guard trimmed else { return }
        try deleteChangeRecord(store, before + 1)
    }

    /// Removes the change-log record of `revision`, from `changes` or the tail, where it is.
    func deleteChangeRecord(_ store: TabKeepStore, _ revision: UInt64) throws {
        let log = try store.environment.database(Records.changes)
        let deleted = try store.environment.write { txn in
            let settled = try txn.delete(log, key: Records.bigEndian(revision))
            let waiting = try txn.delete(.main, key: Records.changeTailKey(revision))
            return settled || waiting
        }
        #expect(deleted, "no change-log record of revision \(revision)")
    }

    /// What a store shows, and its vectors: the twins of an edit made in flight stamp it at
    /// different instants, so their bytes differ while everything they show must not.
    struct Shown: Equatable {
        var layouts: [DocumentKey: Layout]
        var vectors: [ProfileID: VersionVector]
    }

    func shown(_ store: TabKeepStore) throws -> Shown {
        var layouts: [DocumentKey: Layout] = [:]
        for key in try documentBytes(store).keys {
            layouts[key] = try store.layout(key.profile, bar: key.bar, catalog: letterTabs)
        }
        return Shown(layouts: layouts, vectors: try store.versionVectors())
    }

    @Test(arguments: seeds) func aFormatFiveExchangeEndsWhereAFormatFourOneDoes(seed: Int) throws {
        let directory = TemporaryDirectory()
        var random = SplitMix64(seed: UInt64(seed) &+ 0xF05)
        let stores = try bulk.randomStores(&random, in: directory, seed: seed)
        let replay = replayLine(
            seed: UInt64(seed), variable: "TABKEEP_FORMAT5_SEED", filter: "FormatFivePropertyTests")
        for (round, inFlight) in InFlight.all.enumerated() {
            let (first, second) = (Int(random.next() % 3), Int(random.next() % 3))
            guard first != second else { continue }
            let fast = try (
                four.twin(stores[first], directory, "f\(round)a"),
                four.twin(stores[second], directory, "f\(round)b")
            )
            let slow = try (
                four.twin(stores[first], directory, "s\(round)a"),
                four.twin(stores[second], directory, "s\(round)b")
            )
            // The profile the mutation picks: one the format-5 reply lists (a difference), or for
            // an edit in flight, one it leaves out (both agree on it), when there is one.
            var request = try SyncSession(store: fast.0).request()
            let listed = try SyncSession(store: fast.1).respond(to: request).sections.map(\.profile)
            request.requesterRevision = nil
            let every = try SyncSession(store: fast.1).respond(to: request).sections.map(\.profile)
            var editing = false
            var trimmed = false
            if case .editedMeanwhile(let logTrimmed) = inFlight { (editing, trimmed) = (true, logTrimmed) }
            let candidates = editing ? every.filter { !listed.contains($0) } : listed
            guard !candidates.isEmpty else { continue }
            let profile = candidates[Int(random.next() % UInt64(candidates.count))]
            func outcome(_ pair: (TabKeepStore, TabKeepStore), format: UInt8) -> String {
                four.exchange(pair.0, pair.1, format: format) { reply in
                    switch inFlight {
                    case .mutated(let mutation):
                        // The format-4 suite's mutation, done to this profile's section.
                        if let index = reply.sections.firstIndex(where: { $0.profile == profile }) {
                            four.mutate(&reply, mutation, receiver: pair.0.replicaID, index)
                        }
                    case .editedMeanwhile(let logTrimmed):
                        try editMeanwhile(pair.0, profile, trimmed: logTrimmed)
                    }
                }
            }
            let fastOutcome = outcome(fast, format: 5)
            let slowOutcome = outcome(slow, format: 4)
            // Bytes where nothing was edited in flight; what the stores show where something was.
            func same(_ one: TabKeepStore, _ other: TabKeepStore) throws -> Bool {
                editing ? try shown(one) == shown(other) : try four.state(one) == four.state(other)
            }
            #expect(try same(fast.0, slow.0), "\(inFlight), requester: \(replay)")
            if trimmed {
                // The one difference by design: the edit reaches the replier at the next exchange.
                #expect(try !same(fast.1, slow.1), "\(replay)")
                _ = four.exchange(fast.0, fast.1, format: 5) { _ in }
                #expect(try same(fast.1, slow.1), "next exchange: \(replay)")
                #expect(try same(fast.0, slow.0), "next exchange: \(replay)")
            } else {
                #expect(fastOutcome == slowOutcome, "\(inFlight): \(replay)")
                #expect(try same(fast.1, slow.1), "\(inFlight), replier: \(replay)")
            }
            // The stores themselves go on syncing, so later rounds start from synced stores.
            _ = four.exchange(stores[first], stores[second], format: 5) { _ in }
        }
    }

    @Test(arguments: seeds) func aFormatFiveReplyIsTheFormatFourOneWithoutTheAgreedProfiles(seed: Int) throws
    {
        let directory = TemporaryDirectory()
        var random = SplitMix64(seed: UInt64(seed) &+ 0xF5A)
        let stores = try bulk.randomStores(&random, in: directory, seed: seed)
        let replay = replayLine(
            seed: UInt64(seed), variable: "TABKEEP_FORMAT5_SEED", filter: "FormatFivePropertyTests")
        var request = try SyncSession(store: stores[0]).request()
        #expect(request.requesterRevision == (try stores[0].lastRevision()), "\(replay)")
        var found: [OverClaim] = []
        let five = try SyncSession(store: stores[1]).respond(to: request, reporting: &found)
        request.requesterRevision = nil
        let fourReply = try SyncSession(store: stores[1]).respond(to: request)
        let untrusted = Set(found.map(\.profile))
        let expected = fourReply.sections.filter {
            !($0.vector == $0.base && $0.documents.isEmpty) || untrusted.contains($0.profile)
        }
        #expect(five.sections == expected, "\(replay)")
        #expect(five.requesterRevision == (try stores[0].lastRevision()), "\(replay)")
        #expect(try SyncMessage(decoding: five.encoded()) == five, "\(replay)")
    }

    @Test func aProfileEditedWhileTheReplyIsInFlightGoesWholeInTheFinal() throws {
        let directory = TemporaryDirectory()
        let (a, b) = (try directory.store("a"), try directory.store("b"))
        try a.edit(profile("alice"), catalog: letterTabs, .setBadge(tab("a"), 3))
        try a.edit(profile("bob"), catalog: letterTabs, .setBadge(tab("b"), 1))
        try a.edit(profile("carol"), catalog: letterTabs, .setBadge(tab("e"), 4))
        try sync(a, b)
        try a.edit(profile("bob"), catalog: letterTabs, .setBadge(tab("c"), 2))
        let asking = SyncSession(store: b)
        let request = try asking.request()
        let reply = try SyncSession(store: a).respond(to: SyncMessage(decoding: request.encoded()))
        #expect(reply.sections.map(\.profile) == [profile("bob")], "alice and carol agreed: left out")
        // b edits alice before the reply arrives: the reply says nothing of alice.
        try b.edit(profile("alice"), catalog: letterTabs, .setHidden(tab("d"), true))
        let receipt = try asking.receive(SyncMessage(decoding: reply.encoded()))
        let final = try #require(receipt.reply)
        let alice = try #require(final.sections.first { $0.profile == profile("alice") })
        #expect(alice.base.isEmpty, "whole: b knows only that a's alice equalled its request")
        #expect(
            final.sections.map(\.profile) == [profile("alice")], "carol, agreed and unchanged, is not read")
        try SyncSession(store: a).receive(SyncMessage(decoding: final.encoded()))
        #expect(try documentBytes(a) == documentBytes(b))
        #expect(try a.versionVectors() == b.versionVectors())
    }

    @Test func theChangeLogTellsWhichProfilesChangedSinceARevisionOrThatItCannot() throws {
        let directory = TemporaryDirectory()
        let store = try directory.store("a")
        #expect(try store.profilesChanged(after: 0) == [])
        try store.edit(profile("alice"), catalog: letterTabs, .setBadge(tab("a"), 3))
        let start = try store.lastRevision()
        #expect(try store.profilesChanged(after: start) == [])
        try store.edit(profile("bob"), catalog: letterTabs, .setBadge(tab("a"), 3))
        try store.edit(profile("carol"), catalog: letterTabs, .setBadge(tab("a"), 3))
        #expect(try store.profilesChanged(after: start) == [profile("bob"), profile("carol")])
        #expect(try store.profilesChanged(after: start + 1) == [profile("carol")])
        #expect(try store.profilesChanged(after: start + 5) == nil, "a revision this log never reached")
        try deleteChangeRecord(store, start + 1)
        #expect(try store.profilesChanged(after: start) == nil, "the record after it is gone")
        #expect(try store.profilesChanged(after: start + 1) == [profile("carol")])
    }

    @Test func aFinalInFormatFiveIsRefusedAndAFormatFiveRequestRoundTrips() throws {
        let directory = TemporaryDirectory()
        let (a, b) = (try directory.store("a"), try directory.store("b"))
        try a.edit(profile("alice"), catalog: letterTabs, .setBadge(tab("a"), 3))
        let request = try SyncSession(store: b).request()
        let bytes = request.encoded()
        #expect(bytes[4] == 5)
        #expect(try SyncMessage(decoding: bytes) == request)
        let reply = try SyncSession(store: a).respond(to: request)
        let final = try #require(try SyncSession(store: b).receive(reply).reply)
        #expect(final.requesterRevision == nil && final.encoded()[4] == 4)
        var forged = Array(final.encoded().dropLast(4))
        forged[4] = 5
        let messages = BadInputTests()
        #expect {
            try SyncMessage(decoding: messages.sealed(forged))
        } throws: { error in
            "\(error)".contains("a final message in format 5")
        }
    }

    @Test func aRequestThatOmitsNothingIsAnsweredAsOnTheWireWithEveryProfile() throws {
        let directory = TemporaryDirectory()
        let (a, b) = (try directory.store("a"), try directory.store("b"))
        try a.edit(profile("alice"), catalog: letterTabs, .setBadge(tab("a"), 3))
        try a.edit(profile("bob"), catalog: letterTabs, .setBadge(tab("b"), 1))
        try sync(a, b)
        try a.edit(profile("alice"), catalog: letterTabs, .setBadge(tab("c"), 2))
        // A revision on a request that omits nothing is not written (format 3): answered in
        // memory, it must get the reply its bytes get, every profile listed.
        var request = try SyncSession(store: b).request()
        request.omitsUnchanged = false
        #expect(request.encoded()[4] == 3)
        let inMemory = try SyncSession(store: a).respond(to: request)
        let onTheWire = try SyncSession(store: a).respond(to: SyncMessage(decoding: request.encoded()))
        #expect(inMemory.sections == onTheWire.sections)
        #expect(inMemory.sections.map(\.profile) == [profile("alice"), profile("bob")])
        #expect(inMemory.encoded() == onTheWire.encoded())
    }
}
