import Foundation
import LMDBKit
import TabKeep
import TabKeepDump
import TabKeepSync
import TabKeepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Crash: restore and sync apply killed part-way are all or nothing")
struct AllOrNothingCrashTests {
    /// A store (`.deferred`, so building it is quick) with `count` profiles `prefix-pN` whose
    /// badges are N + `offset`.
    static func makeStore(_ path: String, prefix: String, count: Int, offset: Int) throws -> TabKeepStore {
        let store = try TabKeepStore(path: path, options: .init(durability: .deferred))
        try store.registerCatalog(Fixture.catalog)
        for index in 0..<count {
            try store.edit(
                try ProfileID("\(prefix)-p\(index)"), catalog: Fixture.catalog,
                Fixture.edits(setting: index + offset))
        }
        try store.environment.sync()
        return store
    }

    /// Every profile's badge (-1 for a half-applied one), in one snapshot.
    static func contents(_ path: String) throws -> [String: Int] {
        // The durability `makeStore` may still hold the path open with: one path, one configuration.
        let store = try TabKeepStore(path: path, options: .init(durability: .deferred))
        var result: [String: Int] = [:]
        try store.forEachDocument { key, document in
            result[key.profile.rawValue] = (try? document.get()).flatMap(Fixture.badge) ?? -1
        }
        return result
    }

    /// A random instant within `seconds`, in microseconds.
    static func instant(within seconds: Double) -> UInt32 {
        UInt32(Double.random(in: 0...seconds) * 1_000_000)
    }

    /// Where kills landed, told by the lines the child printed (`started` just before the call
    /// that holds the write transaction, `finished` once it returned) and by what it left.
    struct Landings: CustomStringConvertible {
        let started: String
        let finished: String
        /// Before the call: nothing may have changed.
        var before = 0
        /// Inside the call, the old content left: the transaction was cut short and rolled back.
        var insideRolledBack = 0
        /// Inside the call, the new content left: killed after the commit, before the call returned.
        var insideCommitted = 0
        /// After the call returned: the new content must be there.
        var after = 0

        /// Tallies one kill; false when the content contradicts the lines.
        mutating func tally(_ lines: [String], committed: Bool) -> Bool {
            if lines.contains(where: { $0.hasPrefix(finished) }) {
                after += 1
                return committed
            }
            guard lines.contains(where: { $0.hasPrefix(started) }) else {
                before += 1
                return !committed
            }
            if committed { insideCommitted += 1 } else { insideRolledBack += 1 }
            return true
        }

        var description: String {
            "\(before) before the call, \(insideRolledBack) inside it rolled back, "
                + "\(insideCommitted) inside it after the commit, \(after) after it"
        }
    }

    /// Kills `child` at a random instant within `window` seconds (counted from its `started`
    /// line when `aimed`, so the kill lands inside the call or after it), then checks that the
    /// store at `path` verifies and that the child did not fail by itself. Returns the store's
    /// contents and the lines the child printed, or nil after recording the problem.
    static func killAndInspect(
        _ child: Child, within window: Double, aimed: Bool, landings: Landings, store path: String,
        in directory: TemporaryDirectory, round: Int, what: String
    ) throws -> (content: [String: Int], lines: [String])? {
        if aimed && child.waitForLine(startingWith: landings.started, seconds: 120) == nil {
            Issue.record("round \(round): the \(what) never said \"\(landings.started)\": \(child.errorText)")
            return nil
        }
        usleep(instant(within: window))
        child.kill()
        if let problems = try verifyProblems(path, in: directory) {
            Issue.record("round \(round): verify failed: \(problems)")
            return nil
        }
        let now = try contents(path)
        if child.process.terminationReason == .exit && child.process.terminationStatus != 0 {
            Issue.record("round \(round): the \(what) failed by itself: \(child.errorText)")
            return nil
        }
        return (now, child.lines)
    }

    @Test func aRestoreKilledAtAnyInstantLeavesTheOldOrTheWholeNewContent() throws {
        let directory = TemporaryDirectory()
        var expected: [[String: Int]] = []
        for (index, prefix) in ["a", "b"].enumerated() {
            let source = try Self.makeStore(
                directory.sub("source-\(prefix)"), prefix: prefix, count: 300 + index * 100, offset: 1 + index
            )
            let dump = FileManager.default.createFile(
                atPath: directory.sub("\(prefix).tkdump"), contents: nil)
            #expect(dump)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.sub("\(prefix).tkdump")))
            try source.dump { try handle.write(contentsOf: $0) }
            try handle.close()
            expected.append(try Self.contents(directory.sub("source-\(prefix)")))
        }
        let path = directory.sub("store")
        // One run to the end, timed, so kills land across the whole restore.
        let started = Date()
        let first = try run(Built.stress, ["restore", path, directory.sub("a.tkdump")], in: directory)
        let duration = Date().timeIntervalSince(started)
        #expect(first.status == 0, "\(first.output)")
        var current = 0
        var (kills, completed) = (0, 0)
        // Starts at 1.3 times the timed run; widens after a kill before the commit and narrows after
        // one past it, so the random instants spread over the whole restore. Every kill must leave
        // the old or the whole new content, and some must land inside the transaction.
        // Every other kill is aimed: made within `aimedWindow` of the child's "restoring" line (kept
        // the same way), so some land inside the transaction whatever the start-up costs.
        var window = duration * 1.3
        var aimedWindow = duration
        var landings = Landings(started: "restoring", finished: "restored")
        for round in 0..<killCount(40) {
            let target = 1 - current
            let child = try Child(
                Built.stress, ["restore", path, directory.sub(["a", "b"][target] + ".tkdump")], in: directory)
            kills += 1
            let aimed = round % 2 == 1
            guard
                let (now, lines) = try Self.killAndInspect(
                    child, within: aimed ? aimedWindow : window, aimed: aimed, landings: landings,
                    store: path,
                    in: directory, round: round, what: "restore")
            else { return }
            if aimed {
                aimedWindow *= now == expected[target] ? 0.8 : 1.5
            } else {
                window *= now == expected[target] ? 0.8 : 1.5
            }
            if !landings.tally(lines, committed: now == expected[target]) {
                Issue.record(
                    "round \(round): printed \(lines) but left the \(now == expected[target] ? "new" : "old") content"
                )
            }
            if now == expected[target] {
                current = target
                completed += 1
            } else if now != expected[current] {
                let mixed = now.keys.filter { $0.hasPrefix("a-") }.count
                Issue.record("round \(round): neither old nor new (\(now.count) documents, \(mixed) from a)")
                return
            }
        }
        // Whatever the random instants hit, one kill is made after the commit for certain: the child
        // says "restored" only once it returned, and then the whole new content must be there.
        let target = 1 - current
        let late = try Child(
            Built.stress, ["restore", path, directory.sub(["a", "b"][target] + ".tkdump")], in: directory)
        #expect(late.waitForLine(startingWith: "restored", seconds: 120) != nil, "\(late.errorText)")
        late.kill()
        #expect(
            try Self.contents(path) == expected[target], "a kill after the commit keeps the whole restore")
        // The fresh files of the restores cut short were removed by the next one; the last one
        // completed, so none is left.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: path).filter {
            $0.hasPrefix(Environment.replacementDirectoryPrefix)
        }
        #expect(leftovers.isEmpty, "left behind: \(leftovers)")
        report(
            "restore crash (one restore takes \(duration) s): \(kills) kills survived, \(completed) restores had committed whole, the rest left nothing; kills landed \(landings)"
        )
        // A test whose kills all land before or after the transaction proves nothing about it.
        #expect(
            landings.insideRolledBack > 0 || kills < 10, "no kill landed inside the transaction: \(landings)")
    }

    @Test func aSyncApplyKilledAtAnyInstantAppliesAllOrNothing() throws {
        let directory = TemporaryDirectory()
        let source = try Self.makeStore(directory.sub("source"), prefix: "m", count: 400, offset: 1)
        let pristine = directory.sub("pristine")
        do {
            let target = try Self.makeStore(pristine, prefix: "t", count: 50, offset: 7)
            let reply = try SyncSession(store: source).respond(to: SyncSession(store: target).request())
            #expect(reply.documents.count == 400)
            try Data(reply.encoded()).write(to: URL(fileURLWithPath: directory.sub("reply.tksync")))
        }
        let before = try Self.contents(pristine)
        var after = before
        for (key, value) in try Self.contents(directory.sub("source")) { after[key] = value }

        let timed = directory.sub("timed")
        try FileManager.default.copyItem(atPath: pristine, toPath: timed)
        let started = Date()
        let first = try run(Built.stress, ["apply", timed, directory.sub("reply.tksync")], in: directory)
        let duration = Date().timeIntervalSince(started)
        #expect(first.status == 0, "\(first.output)")
        #expect(try Self.contents(timed) == after)

        var (kills, completed) = (0, 0)
        var window = duration * 1.3  // both adapt as in the restore test
        var aimedWindow = duration
        var landings = Landings(started: "applying", finished: "applied")
        for round in 0..<killCount(40) {
            let path = directory.sub("work-\(round)")
            try FileManager.default.copyItem(atPath: pristine, toPath: path)
            try? FileManager.default.removeItem(atPath: path + "/lock.mdb")
            let child = try Child(
                Built.stress, ["apply", path, directory.sub("reply.tksync")], in: directory)
            kills += 1
            let aimed = round % 2 == 1
            guard
                let (now, lines) = try Self.killAndInspect(
                    child, within: aimed ? aimedWindow : window, aimed: aimed, landings: landings,
                    store: path,
                    in: directory, round: round, what: "apply")
            else { return }
            if aimed {
                aimedWindow *= now == after ? 0.8 : 1.5
            } else {
                window *= now == after ? 0.8 : 1.5
            }
            if !landings.tally(lines, committed: now == after) {
                Issue.record(
                    "round \(round): printed \(lines) but left the \(now == after ? "new" : "old") content")
            }
            if now == after {
                completed += 1
            } else if now != before {
                let applied = now.keys.filter { $0.hasPrefix("m-") }.count
                Issue.record("round \(round): neither before nor after (\(applied) of 400 applied)")
                return
            }
            try FileManager.default.removeItem(atPath: path)
        }
        // One kill made after the commit for certain: "applied" is printed once apply returned.
        let path = directory.sub("work-late")
        try FileManager.default.copyItem(atPath: pristine, toPath: path)
        try? FileManager.default.removeItem(atPath: path + "/lock.mdb")
        let late = try Child(Built.stress, ["apply", path, directory.sub("reply.tksync")], in: directory)
        #expect(late.waitForLine(startingWith: "applied", seconds: 120) != nil, "\(late.errorText)")
        late.kill()
        #expect(try Self.contents(path) == after, "a kill after the commit keeps the whole apply")
        report(
            "sync apply crash (one apply takes \(duration) s): \(kills) kills survived, \(completed) applies had committed whole, the rest left nothing; kills landed \(landings)"
        )
        #expect(
            landings.insideRolledBack > 0 || kills < 10, "no kill landed inside the transaction: \(landings)")
    }
}
