import Foundation
import LMDBKit
import TabKeep
import TabKeepSync

extension Bench {
    /// sync: a delta of 10k edits extracted and applied between two stores of 100k profiles, in
    /// every locking mode asked for; one edit exchanged between stores of 10k and of 1M profiles
    /// (message bytes and time), in one locking mode (`singleLocking`).
    func syncWorkload() async throws {
        let bulkProfiles = options.smoke ? options.profiles[0] : 100_000
        let bulkEdits = options.smoke ? 100 : 10_000
        for locking in options.lockings {
            try await bulkDelta(profiles: bulkProfiles, edits: bulkEdits, locking: locking)
        }
        let sizes = options.smoke ? [options.profiles[0]] : [10_000, 1_000_000]
        for size in sizes { try oneEdit(profiles: size) }
    }

    /// Two stores holding the same `count` profiles, under different replica ids, exchanged once.
    private func pair(_ name: String, count: Int, shared: Bool, locking: Locking) throws -> (
        SyncSession, SyncSession
    ) {
        let first =
            shared
            ? try sharedStore(count: count, locking: locking)
            : try tabKeepStore("\(name)-a", count: count, locking: locking)
        let second = try tabKeepStore("\(name)-b", count: count, locking: locking)
        let a = SyncSession(store: first)
        let b = SyncSession(store: second)
        try exchange(a, b)
        return (a, b)
    }

    /// One full exchange from `receiver`'s side: request → reply → apply → final → apply; the
    /// reply's bytes and the three messages' bytes together.
    @discardableResult
    private func exchange(_ sender: SyncSession, _ receiver: SyncSession) throws -> (reply: Int, total: Int) {
        let request = try receiver.request().encoded()
        let replyBytes = try sender.respond(to: try SyncMessage(decoding: request)).encoded()
        let reply = try SyncMessage(decoding: replyBytes)
        var total = request.count + replyBytes.count
        if let final = try receiver.receive(reply).reply {
            let finalBytes = final.encoded()
            total += finalBytes.count
            try sender.receive(try SyncMessage(decoding: finalBytes))
        }
        return (replyBytes.count, total)
    }

    private func bulkDelta(profiles count: Int, edits: Int, locking: Locking) async throws {
        let (a, b) = try pair(
            "sync-bulk-\(scaleLabel(count))-\(locking)", count: count, shared: false, locking: locking)
        let badge = fixture.tabs[2]
        let fixture = self.fixture
        var extract = Samples()
        var apply = Samples()
        var entryCounts: [Int] = []
        var bytes = 0
        let rounds = options.smoke ? 2 : 3
        for round in 0..<rounds {
            // Edits on distinct profiles, committed by group commit (not timed).
            let store = a.store
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<edits {
                    group.addTask {
                        let profile = fixture.profile((index * 7 + round * edits) % count)
                        try await store.edit(profile, .addToBadge(badge, 1))
                    }
                }
                try await group.waitForAll()
            }
            let started = nanoseconds()
            let reply = try a.respond(to: try b.request()).encoded()
            let extracted = nanoseconds()
            let message = try SyncMessage(decoding: reply)
            let receipt = try b.receive(message)
            let applied = nanoseconds()
            if let final = receipt.reply { try a.receive(final) }
            extract.add(extracted - started)
            apply.add(applied - extracted)
            entryCounts.append(message.documents.reduce(0) { $0 + $1.document.entries.count })
            bytes = reply.count
        }
        let entries = Double(entryCounts.max() ?? 0)
        let scale = "\(scaleLabel(count)) profiles, \(scaleLabel(edits)) edits"
        let extractMedian = extract.quantile(0.5)
        let applyMedian = apply.quantile(0.5)
        report.rows.append(
            ResultRow(
                workload: Workload.sync.rawValue, scale: scale,
                contender: tabKeepName("TabKeep extract (delta + encode)", locking),
                medianNanoseconds: extractMedian, p99Nanoseconds: extract.quantile(0.99), operations: rounds,
                rate: entries / extractMedian * 1e9, rateUnit: "entries/s",
                note: "\(Int(entries)) entries, \(bytes / 1024) KiB message; time per delta",
                locking: locking.rawValue))
        report.rows.append(
            ResultRow(
                workload: Workload.sync.rawValue, scale: scale,
                contender: tabKeepName("TabKeep apply (decode + merge + commit)", locking),
                medianNanoseconds: applyMedian, p99Nanoseconds: apply.quantile(0.99), operations: rounds,
                rate: entries / applyMedian * 1e9, rateUnit: "entries/s", note: "time per delta",
                locking: locking.rawValue))
    }

    private func oneEdit(profiles count: Int) throws {
        let shared = options.profiles.contains(count)
        let (a, b) = try pair(
            "sync-one-\(scaleLabel(count))", count: count, shared: shared, locking: singleLocking)
        let badge = fixture.tabs[2]
        var times = Samples()
        var sizes: [Int] = []
        var totals: [Int] = []
        var generator = SplitMix64(seed: 42)
        for _ in 0..<(options.smoke ? 3 : 50) {
            let profile = fixture.profile(Int(generator.next() % UInt64(count)))
            try a.store.edit(profile, .addToBadge(badge, 1))
            // Scoped to the profile, as a person's devices sync that person's bars.
            let scope = ProfileScope.only([profile])
            let started = nanoseconds()
            let bytes = try exchange(
                SyncSession(store: a.store, scope: scope), SyncSession(store: b.store, scope: scope))
            sizes.append(bytes.reply)
            totals.append(bytes.total)
            times.add(nanoseconds() - started)
        }
        report.rows.append(
            ResultRow(
                workload: Workload.sync.rawValue, scale: "one edit, \(scaleLabel(count)) profiles",
                contender: "TabKeep exchange scoped to the profile (request, reply, apply, final)",
                medianNanoseconds: times.quantile(0.5), p99Nanoseconds: times.quantile(0.99),
                operations: times.count,
                note:
                    "reply message \(sizes.max() ?? 0) bytes, the three messages \(totals.max() ?? 0) bytes",
                locking: singleLocking.rawValue))
        messageBytes[count] = sizes.max() ?? 0
    }
}
