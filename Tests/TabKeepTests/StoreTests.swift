import Foundation
import LMDBKit
import TabKeep
import TabKeepTestSupport
import Testing

@Suite("Store")
struct StoreTests {
    let directory = TemporaryDirectory()

    func open(_ name: String = "store", _ options: TabKeepStore.Options = .init(durability: .deferred))
        throws -> TabKeepStore
    {
        try TabKeepStore(path: directory.sub(name), options: options)
    }

    /// Every edit kind, on two bars, one of them reset afterwards.
    func applyEveryEditKind(_ store: TabKeepStore) throws {
        let user = profile("user-1")
        try store.registerCatalog(letterTabs)
        try store.edit(user, .move(tab("e"), to: 0))
        try store.edit(user, .reorder(["e", "c", "a", "b", "d", "f", "g"].map(tab)))
        try store.edit(user, .setCustomizable(["e", "c", "a", "b"].map(tab)))
        try store.edit(user, .setCustomizableFlag(tab("f"), true))
        try store.edit(user, .setHidden(tab("d"), true))
        try store.edit(user, .select(.tab(tab("g"))))
        try store.edit(user, .setBadge(tab("a"), 3))
        try store.edit(user, .addToBadge(tab("a"), 2))
        try store.edit(user, .addToBadge(tab("b"), 7))
        try store.edit(user, .clearBadge(tab("b")))
        try store.edit(user, .setBadgeText(tab("c"), "new"))
        let other = bar("secondary")
        try store.edit(
            user, bar: other, catalog: letterTabs, [.move(tab("g"), to: 0), .setBadge(tab("g"), 1)])
        try store.edit(user, bar: other, catalog: letterTabs, .reset)
    }

    @Test func layoutsAndEveryEditKindSurviveCloseAndReopen() throws {
        let before: (Layout, Layout, TabBarDocument?)
        do {
            let store = try open("store", .init(durability: .full))
            try applyEveryEditKind(store)
            before = (
                try store.layout(profile("user-1")),
                try store.layout(profile("user-1"), bar: bar("secondary"), catalog: letterTabs),
                try store.document(profile("user-1"))
            )
        }
        let store = try open("store", .init(durability: .full))
        let main = try store.layout(profile("user-1"))
        #expect(main == before.0)
        #expect(main.order == ["e", "c", "a", "b", "f", "g"].map(tab))
        #expect(main.hidden == [tab("d")])
        #expect(main.customizable == ["e", "c", "a", "b", "f"].map(tab))
        #expect(main.selection == .tab(tab("g")))
        #expect(main.badges == [tab("a"): 5])
        #expect(main.badgeTexts == [tab("c"): "new"])
        let secondary = try store.layout(profile("user-1"), bar: bar("secondary"), catalog: letterTabs)
        #expect(secondary == before.1)
        #expect(secondary.order == letterTabs.tabs.map(\.id))
        #expect(secondary.badges.isEmpty)
        #expect(try store.document(profile("user-1"))?.encoded() == before.2?.encoded())
        #expect(try store.catalog() == letterTabs)
        #expect(try store.profiles() == [profile("user-1")])
        #expect(try store.bars(of: profile("user-1")) == [.main])
    }

    @Test func severalEditsInOneCallAreAllOrNothing() throws {
        let store = try open()
        try store.registerCatalog(letterTabs)
        let user = profile("u")
        try store.edit(user, .setBadge(tab("a"), 1))
        let before = try snapshot(store)
        let error = #expect(throws: TabKeepError.self) {
            try store.edit(user, [.move(tab("c"), to: 0), .setBadge(tab("b"), 4), .move(tab("zz"), to: 1)])
        }
        #expect(error?.description.contains("zz") == true)
        #expect(try snapshot(store) == before)
        #expect(try store.layout(user).order == letterTabs.tabs.map(\.id))
    }

    @Test func aProfileNeverSeenHasTheCatalogsDefaultLayout() throws {
        let store = try open()
        let layout = try store.layout(profile("nobody"), catalog: letterTabs)
        #expect(layout.order == letterTabs.tabs.map(\.id))
        #expect(layout.customizable == letterTabs.tabs.map(\.id))
        #expect(throws: TabKeepError.noCatalog(.main)) { try store.layout(profile("nobody")) }
    }

    @Test func asyncEditsFromSixteenTasksShareCommitsAndAllSurviveReopen() async throws {
        let path = directory.sub("group")
        let commits: Int
        do {
            let store = try TabKeepStore(path: path, options: .init(durability: .full))
            try store.registerCatalog(letterTabs)
            let before = store.environment.lastTransactionID
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<16 {
                    group.addTask {
                        for i in 0..<100 {
                            try await store.edit(profile("task\(task)"), .addToBadge(tab("a"), 1))
                            if i == 99 {
                                try await store.edit(profile("task\(task)"), .setBadgeText(tab("b"), "done"))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            commits = store.environment.lastTransactionID - before
        }
        let edits = 16 * 101
        // How they batched depends on the machine's load: reported, not asserted (see
        // GroupCommitTests for the deterministic case).
        print(
            "group commit: \(edits) edits in \(commits) commits, \(String(format: "%.1f", Double(edits) / Double(commits))) edits per commit"
        )
        let store = try TabKeepStore(path: path)
        for task in 0..<16 {
            let layout = try store.layout(profile("task\(task)"))
            #expect(layout.badges[tab("a")] == 100)
            #expect(layout.badgeTexts[tab("b")] == "done")
        }
    }

    @Test func anAsyncEditThatFailsReportsItsOwnErrorAndOthersCommit() async throws {
        let store = try open()
        try store.registerCatalog(letterTabs)
        let good = Task { try await store.edit(profile("good"), .setBadge(tab("a"), 2)) }
        let bad = Task { try await store.edit(profile("bad"), .move(tab("nope"), to: 0)) }
        try await good.value
        await #expect(throws: TabKeepError.self) { try await bad.value }
        #expect(try store.layout(profile("good")).badges[tab("a")] == 2)
        #expect(try store.document(profile("bad")) == nil)
    }

    @Test(.timeLimit(.minutes(1))) func thisProcessesCommitsReachTheNotificationStream() async throws {
        let store = try open()
        try store.registerCatalog(letterTabs)
        let stream = store.changes()
        try await store.edit(profile("x"), bar: bar("side"), catalog: letterTabs, .setBadge(tab("a"), 1))
        var iterator = stream.makeAsyncIterator()
        let key = await iterator.next()
        #expect(key == DocumentKey(profile: profile("x"), bar: bar("side")))
    }

    @Test(.timeLimit(.minutes(1))) func aChangeCommittedByAnotherProcessReachesTheNotificationStream()
        async throws
    {
        let tabkeep = try #require(builtProduct("tabkeep"), "the tabkeep tool is built with the tests")
        let store = try open("shared", .init(durability: .full, pollInterval: .milliseconds(20)))
        try store.registerCatalog(letterTabs)
        let stream = store.changes()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tabkeep)
        process.arguments = ["set", store.environment.path, "--profile", "elsewhere", "--badge-add", "a=3"]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        var iterator = stream.makeAsyncIterator()
        let key = await iterator.next()
        #expect(key == DocumentKey(profile: profile("elsewhere"), bar: .main))
        #expect(try store.layout(profile("elsewhere")).badges[tab("a")] == 3)
    }

    @Test func aStoreWithAFutureSchemaIsRefusedAndLeftByteIdentical() throws {
        let path = directory.sub("future")
        do {
            let store = try TabKeepStore(path: path)
            try store.registerCatalog(letterTabs)
            try store.edit(profile("u"), .move(tab("b"), to: 0))
        }
        do {
            let env = try Environment.open(path: path, configuration: .init(databases: ["meta"]))
            let meta = try env.database("meta")
            try env.write { txn in
                try txn.put(meta, key: Array("schema".utf8), value: [0, 0, 0, 0, 0, 0, 0, 99])
            }
        }
        // data.mdb, the store, stays byte-identical. lock.mdb is LMDB's reader table: the open that
        // checks the schema (in its first read transaction) takes a reader slot there, as every
        // LMDB reader does, read-only opens included.
        let data = URL(fileURLWithPath: path + "/data.mdb")
        let before = try Data(contentsOf: data)
        let modified = try FileManager.default.attributesOfItem(atPath: data.path)[.modificationDate] as? Date
        #expect(throws: TabKeepError.newerSchema(found: 99, supported: TabKeepStore.schemaVersion)) {
            try TabKeepStore(path: path)
        }
        #expect(try Data(contentsOf: data) == before)
        #expect(
            try FileManager.default.attributesOfItem(atPath: data.path)[.modificationDate] as? Date
                == modified)
        #expect(
            TabKeepError.newerSchema(found: 99, supported: 1).description
                == "the store has schema 99, newer than the 1 this version supports; it was not changed")
    }

    @Test func mergingAGuestIntoAnAccountKeepsBothSidesEdits() throws {
        let store = try open()
        try store.registerCatalog(letterTabs)
        let guest = profile("guest")
        let account = profile("account")
        try store.edit(
            account, [.move(tab("g"), to: 0), .addToBadge(tab("a"), 2), .setHidden(tab("e"), true)])
        try store.edit(guest, [.move(tab("a"), to: 3), .addToBadge(tab("a"), 3), .select(.tab(tab("c")))])
        try store.mergeProfile(guest, into: account)
        let merged = try store.layout(account)
        #expect(merged.order == ["g", "b", "c", "d", "a", "f"].map(tab))
        #expect(merged.hidden == [tab("e")])
        #expect(merged.badges[tab("a")] == 5)
        #expect(merged.selection == .tab(tab("c")))
        #expect(try store.profiles() == [account])
        #expect(try store.layout(guest).order == letterTabs.tabs.map(\.id))
    }

    @Test func aCorruptDocumentIsReportedAloneAndEveryOtherProfileStillReads() throws {
        let store = try open()
        try store.registerCatalog(letterTabs)
        for name in ["a", "b", "c"] { try store.edit(profile(name), .move(tab("d"), to: 0)) }
        let documents = store.documentsDatabase
        let key = DocumentKey(profile: profile("b"), bar: .main)
        try store.environment.write { txn in
            try txn.put(documents, key: store.documentRecordKey(key), value: [0xFF, 0x13, 0x37])
        }
        // Its stored layout (written with it, intact) still answers a launch read; everything that
        // reads the document reports it.
        #expect(try store.layout(profile("b")).order.first == tab("d"))
        #expect(throws: TabKeepError.self) { try store.document(profile("b")) }
        #expect(
            try store.verify().problems.contains { $0.contains(#"document "b"/"main": does not decode"#) })
        try store.environment.write { txn in _ = try txn.delete(documents, key: store.layoutRecordKey(key)) }
        let error = #expect(throws: TabKeepError.self) { try store.layout(profile("b")) }
        guard case .corruptDocument(let reported, _) = error else {
            Issue.record("expected corruptDocument, got \(String(describing: error))")
            return
        }
        #expect(reported == key)
        #expect(error?.description.contains("profile \"b\"") == true)
        for name in ["a", "c"] { #expect(try store.layout(profile(name)).order.first == tab("d")) }
        var failures: [DocumentKey] = []
        try store.forEachDocument { key, result in
            if case .failure = result { failures.append(key) }
        }
        #expect(failures == [key])
    }

    @Test func openingTheSameDirectoryTwiceSharesOneEnvironment() throws {
        let first = try open("same")
        let second = try open("same")
        #expect(first.environment === second.environment)
        #expect(first.replicaID == second.replicaID)
    }

    @Test func aFileWhereTheStoreShouldBeIsAClearError() throws {
        let path = directory.sub("file")
        #expect(FileManager.default.createFile(atPath: path, contents: Data([1])))
        let error = #expect(throws: TabKeepError.self) { try TabKeepStore(path: path) }
        #expect(error?.description.contains("not a directory") == true)
        for readOnly in [false, true] {
            #expect(
                throws: TabKeepError.invalidDirectory(path: path, reason: "it is a file, not a directory")
            ) {
                try TabKeepStore(path: path, options: .init(readOnly: readOnly))
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data([1]))
    }
}

@Suite("Store import: replace and merge")
struct StoreImportTests {
    let directory = TemporaryDirectory()

    func open(_ name: String) throws -> TabKeepStore {
        let store = try TabKeepStore(path: directory.sub(name), options: .init(durability: .deferred))
        try store.registerCatalog(letterTabs)
        return store
    }

    /// Every stored document, by key.
    func documents(_ store: TabKeepStore) throws -> [(DocumentKey, TabBarDocument)] {
        var result: [(DocumentKey, TabBarDocument)] = []
        try store.forEachDocument { key, document in result.append((key, try document.get())) }
        return result
    }

    /// Feeds `items` to a replace (or merge) import of `store`.
    @discardableResult
    func importing(
        _ items: [(DocumentKey, TabBarDocument)], into store: TabKeepStore, mode: ImportMode = .replace,
        dryRun: Bool = false
    ) throws -> ImportReport {
        try store.importDocuments(mode: mode, dryRun: dryRun) { add in
            for (key, document) in items { try add(key, document) }
        }
    }

    @Test func replacingWithTheStoredDocumentsReportsEveryOneUnchanged() throws {
        let store = try open("store")
        for name in ["a", "b", "c"] { try store.edit(profile(name), .move(tab("d"), to: 0)) }
        try store.reset(profile("b"))
        let before = try documents(store)
        let dry = try importing(before, into: store, dryRun: true)
        let report = try importing(before, into: store)
        for result in [dry, report] {
            #expect(result.unchanged == 3 && result.changed == 0 && result.added == 0 && result.removed == 0)
        }
        #expect(try documents(store).map(\.0) == before.map(\.0))
        try expectDotsAndVersionsMatchDocuments(store)
    }

    @Test func replaceLeavesExactlyTheFedDocumentsWithTheirDotsAndNothingElse() throws {
        let source = try open("source")
        let target = try open("target")
        for name in ["p1", "p2", "p3", "p4"] {
            try source.edit(profile(name), [.move(tab("e"), to: 0), .setBadge(tab("a"), 2)])
        }
        try source.reset(profile("p3"))
        try source.edit(profile("p3"), .select(.tab(tab("c"))))
        for name in ["p0", "p1", "p3", "p5"] {
            try target.edit(profile(name), [.setHidden(tab("b"), true), .reset])
            try target.edit(profile(name), .setBadgeText(tab("c"), "x"))
        }
        // p2 identical on both; a merged clear in p3 leaves a kept clear dot in the target.
        let fed = try documents(source)
        try importing(fed.filter { $0.0.profile == profile("p2") }, into: target, mode: .merge)
        try importing(fed.filter { $0.0.profile == profile("p3") }, into: target, mode: .merge)

        let report = try importing(fed, into: target)
        #expect(report.added == 1 && report.changed == 2 && report.unchanged == 1 && report.removed == 2)
        let after = try documents(target)
        #expect(after.map(\.0) == fed.map(\.0))
        #expect(after.map { $0.1.encoded() } == fed.map { $0.1.encoded() })
        #expect(try target.profiles() == ["p1", "p2", "p3", "p4"].map(profile))
        try expectDotsAndVersionsMatchDocuments(target)
        // The target still edits and syncs: its own sequence continues past what it had.
        try target.edit(profile("p1"), .select(.tab(tab("g"))))
        try expectDotsAndVersionsMatchDocuments(target)
    }

    @Test func aReplaceFeedOutOfKeyOrderEndsAsOneInOrder() throws {
        let source = try open("source")
        for name in ["a", "b", "c", "d"] { try source.edit(profile(name), .move(tab("f"), to: 0)) }
        let fed = try documents(source)
        let ordered = try open("ordered")
        let shuffled = try open("shuffled")
        for store in [ordered, shuffled] {
            for name in ["a", "bb", "c", "zz"] { try store.edit(profile(name), .setBadge(tab("a"), 1)) }
        }
        let inOrder = try importing(fed, into: ordered)
        let outOfOrder = try importing([fed[2], fed[0], fed[3], fed[1], fed[0]], into: shuffled)
        #expect(inOrder.added == 2 && inOrder.changed == 2 && inOrder.removed == 2)
        #expect(outOfOrder.added == 2 && outOfOrder.changed == 2 && outOfOrder.removed == 2)
        #expect(outOfOrder.unchanged == 1, "the key fed twice")
        for store in [ordered, shuffled] {
            #expect(try documents(store).map { $0.1.encoded() } == fed.map { $0.1.encoded() })
            try expectDotsAndVersionsMatchDocuments(store)
        }
    }

    @Test func aReplaceRepairsACorruptStoredDocument() throws {
        let store = try open("store")
        for name in ["a", "b", "c"] { try store.edit(profile(name), .move(tab("d"), to: 0)) }
        let good = try documents(store)
        let documentsDatabase = store.documentsDatabase
        for name in ["b", "c"] {
            let key = DocumentKey(profile: profile(name), bar: .main)
            try store.environment.write { txn in
                try txn.put(documentsDatabase, key: store.documentRecordKey(key), value: [0xFF])
            }
        }
        let report = try importing(Array(good.prefix(2)), into: store)
        #expect(report.unchanged == 1 && report.changed == 1 && report.removed == 1)
        #expect(try store.profiles() == [profile("a"), profile("b")])
        #expect(try store.layout(profile("b")).order.first == tab("d"))
        try expectDotsAndVersionsMatchDocuments(store)
    }

    @Test func aReplaceNotifiesChangedAndRemovedDocumentsButNotUnchangedOnes() async throws {
        let source = try open("source")
        let store = try open("store")
        for name in ["a", "b"] { try await source.edit(profile(name), .move(tab("c"), to: 0)) }
        try importing(try documents(source), into: store)
        try await source.edit(profile("b"), .setBadge(tab("a"), 4))
        try await store.edit(profile("gone"), .setHidden(tab("g"), true))
        let stream = store.changes()
        try importing(try documents(source), into: store)
        try await store.edit(profile("zz-last"), .select(.more))
        var seen: [DocumentKey] = []
        for await key in stream {
            seen.append(key)
            if key.profile == profile("zz-last") { break }
        }
        #expect(seen.map(\.profile) == ["b", "gone", "zz-last"].map(profile))
    }
}

/// `verify` finds nothing (no dot held twice in a profile, no dot record left), and the version
/// vector covers every dot.
func expectDotsAndVersionsMatchDocuments(_ store: TabKeepStore) throws {
    let report = try store.verify()
    #expect(report.problems == [])
    // And each profile's vector covers exactly its own documents' dots.
    let vectors = try store.versionVectors()
    try store.forEachDocument { key, document in
        let vector = vectors[key.profile] ?? VersionVector()
        for dot in try document.get().dots {
            #expect(vector.contains(dot), "\(key): dot \(dot) is past its profile's vector")
        }
    }
}
