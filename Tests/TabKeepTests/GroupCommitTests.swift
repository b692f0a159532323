import Foundation
import TabKeepTestSupport
import Testing

@testable import TabKeep

/// Group commit, shown without timing: edits that wait together are committed together.
@Suite("Group commit")
struct GroupCommitTests {
    let directory = TemporaryDirectory()

    @Test func editsThatWaitTogetherShareOneCommit() async throws {
        // lmdb mode, whose suspension holds async edits back (per-transaction suspension holds nothing).
        let store = try TabKeepStore(
            path: directory.sub("store"), options: .init(durability: .full, locking: .lmdb))
        try store.registerCatalog(lettersCatalog(5))
        // While suspended, async edits wait; the wait is observed, not timed.
        await store.suspend()
        let editors = (0..<16).map { task in
            Task { try await store.edit(try ProfileID("task-\(task)"), .addToBadge(tab("a"), 1)) }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while store.groupCommit.heldCount < 16 && ContinuousClock.now < deadline { await Task.yield() }
        #expect(store.groupCommit.heldCount == 16)
        let before = store.environment.lastTransactionID
        store.resume()
        for editor in editors { try await editor.value }
        #expect(store.environment.lastTransactionID - before == 1, "16 waiting edits, one commit")
        for task in 0..<16 {
            #expect(try store.layout(try ProfileID("task-\(task)")).badges[tab("a")] == 1)
        }
    }
}
