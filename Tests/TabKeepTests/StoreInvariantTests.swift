import Foundation
import TabKeepTestSupport
import Testing

@testable import TabKeep

/// Invariants a store keeps through resets and at the end of its clock.
@Suite("Store invariants: clears and the clock")
struct StoreInvariantTests {
    let directory = TemporaryDirectory()
    let catalog = lettersCatalog(5)
    let user = try! ProfileID("user")

    @Test func aBarResetTwiceAndConcurrentResetsMergedStillVerify() throws {
        let phone = try TabKeepStore(path: directory.sub("phone"))
        let tablet = try TabKeepStore(path: directory.sub("tablet"))
        try phone.edit(user, catalog: catalog, [.move(tab("c"), to: 0), .addToBadge(tab("a"), 2)])
        try phone.reset(user)
        try phone.edit(user, catalog: catalog, .setHidden(tab("b"), true))
        try phone.reset(user)
        #expect(try phone.verify().problems == [])
        // Two devices reset the same bar without seeing each other's reset, then merge.
        try tablet.edit(user, catalog: catalog, .move(tab("e"), to: 0))
        try tablet.reset(user)
        try tablet.apply(try phone.delta(after: tablet.versionVectors()))
        try phone.apply(try tablet.delta(after: phone.versionVectors()))
        #expect(try phone.verify().problems == [])
        #expect(try tablet.verify().problems == [])
        #expect(try phone.document(user) == tablet.document(user))
    }

    /// The change log keeps its newest `limit` records and drops older ones a whole batch at a
    /// time: after every commit, whatever its size, the log is one run of revisions ending at the
    /// newest, at least `limit` long (or all of them) and shorter than `limit + batch`. A log that
    /// an older build trimmed one record at a time (batch 1) goes on the same way.
    @Test func theChangeLogKeepsItsNewestRecordsAndDropsOlderOnesABatchAtATime() throws {
        let store = try TabKeepStore(path: directory.sub("log"))
        let key = DocumentKey(profile: user, bar: .main)
        let limit: UInt64 = 10
        for commit in 0..<60 {
            let batch: UInt64 = commit < 15 ? 1 : 4
            let count = [1, 1, 3, 17, 2][commit % 5]
            try store.write { txn in
                _ = try store.appendToChangeLog(
                    txn, Array(repeating: key, count: count), clock: 1, limit: limit, batch: batch)
            }
            let (now, records) = try store.changesPast(0)
            let revisions = records.map(\.0)
            #expect(revisions.last == now, "commit \(commit)")
            #expect(revisions == Array((now - UInt64(revisions.count) + 1)...now), "commit \(commit): a gap")
            #expect(UInt64(revisions.count) >= min(now, limit), "commit \(commit): \(revisions.count) kept")
            #expect(UInt64(revisions.count) < limit + batch, "commit \(commit): \(revisions.count) kept")
            if commit >= 20 {
                // Whole batches go (a few commits after the switch, some have): the oldest kept
                // record follows a multiple of the batch.
                #expect((revisions[0] - 1) % batch == 0, "commit \(commit): oldest \(revisions[0])")
            }
        }
    }

    /// The newest records wait in the tail and join `changes` a block at a time: after every
    /// commit, one edit or many, `changes` ends at the last multiple of 8 at or below the newest
    /// revision and the tail holds the rest, so a follower still reads one run of revisions, the
    /// next commit takes the clock from the newest record, and `verify` finds nothing. A tail record
    /// out of its place, or one of the wrong form, is reported.
    @Test func theChangeLogsNewestRecordsWaitInTheTailAndJoinChangesABlockAtATime() throws {
        let store = try TabKeepStore(path: directory.sub("tail"))
        let start = try store.lastRevision()
        for (step, count) in [1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 9, 1, 20, 1, 7, 1].enumerated() {
            let profiles = try (0..<count).map { try ProfileID("p\(step)-\($0)") }
            try store.write { txn in
                _ = try store.appendToChangeLog(
                    txn, profiles.map { DocumentKey(profile: $0, bar: .main) }, clock: UInt64(100 + step))
            }
            let now = try store.lastRevision()
            let (settled, tail) = try changeLogRevisions(store)
            let boundary = now - now % Records.changeTailBlock
            #expect(
                settled.last.map { $0 <= boundary } ?? true,
                "step \(step): \(settled.last ?? 0) past \(boundary)")
            #expect(
                tail == Array(stride(from: max(boundary, start) + 1, through: now, by: 1)), "step \(step)")
            let (latest, records) = try store.changesPast(start)
            #expect(latest == now)
            #expect(records.map(\.0) == Array((start + 1)...now), "step \(step): one run of revisions")
            #expect(records.suffix(count).map(\.1.profile) == profiles, "step \(step)")
            #expect(try store.write { txn in try store.lastChange(txn)?.clock } == UInt64(100 + step))
            #expect(try store.verify().problems == [], "step \(step)")
        }
        // Damage in the tail is found: a key of the wrong length, and a record not after `changes`.
        try store.environment.write { txn in
            try txn.put(.main, key: Records.changeTailPrefix + [1, 2, 3], value: [0])
        }
        #expect(
            try store.verify().problems.contains { $0.contains("the change log's tail: a key of 11 bytes") })
        try store.environment.write { txn in
            _ = try txn.delete(.main, key: Records.changeTailPrefix + [1, 2, 3])
            try txn.put(.main, key: Records.changeTailKey(1), value: Records.bigEndian(1) + [0x75, 0])
        }
        #expect(try store.verify().problems.contains { $0.contains("not after \"changes\"' last") })
    }

    @Test func theClockNeverWrapsAndAnEditAtItsEndFailsClearly() throws {
        var clock = HybridLogicalClock(last: Stamp.last)
        #expect(clock.tick() == Stamp.last)
        var nearEnd = HybridLogicalClock(last: Stamp(rawValue: Stamp.last.rawValue - 1))
        #expect(nearEnd.tick() == Stamp.last)

        let store = try TabKeepStore(path: directory.sub("store"))
        // A document stamped one step below the end, let in past the clock guard on purpose.
        var device = Replica(
            id: ReplicaID(rawValue: 0xE2D),
            clock: HybridLogicalClock(last: Stamp(rawValue: Stamp.last.rawValue - 2)))
        var document = TabBarDocument()
        try document.apply(.setHidden(tab("b"), true), catalog: catalog, by: &device)
        _ = try store.importDocuments(mode: .merge, maxDrift: .seconds(9_000_000_000_000_000)) { add in
            try add(DocumentKey(profile: user, bar: .main), document)
        }
        let before = try store.document(user)
        #expect(throws: TabKeepError.clockExhausted) {
            try store.edit(user, catalog: catalog, .setHidden(tab("c"), true))
        }
        #expect(try store.document(user) == before)
        #expect("\(TabKeepError.clockExhausted)".contains("highest stamp"))
    }

    @Test func aHandleThatMissedAFreshIdentityWritesUnderTheNewOne() throws {
        let path = directory.sub("shared")
        let first = try TabKeepStore(path: path)
        let second = try TabKeepStore(path: path)  // another handle, as another process would have
        try first.edit(user, catalog: catalog, .addToBadge(tab("a"), 1))
        let old = first.replicaID
        #expect(second.replicaID == old)
        _ = try first.importDocuments(mode: .replace) { add in
            try add(DocumentKey(profile: user, bar: .main), try first.document(user) ?? TabBarDocument())
        }
        let fresh = first.replicaID
        #expect(fresh != old)
        // The second handle still remembers the old id; its next edit must not write under it.
        try second.edit(user, catalog: catalog, .addToBadge(tab("a"), 1))
        #expect(second.replicaID == fresh)
        let dots = try #require(try second.document(user)).dots
        #expect(dots.contains { $0.replica == fresh })
        #expect(try second.identityHistory() == [old])
        #expect(try second.verify().problems == [])
        #expect(try second.layout(user, catalog: catalog).badges[tab("a")] == 2)
    }
}
