import Foundation
import LMDBKit
import TabKeepTestSupport
import Testing

@testable import TabKeep

/// The store's launch read: the layout-only decode, the cached registered catalog, and an open of an
/// existing store that leaves its files alone.
@Suite("Store layout read")
struct StoreLayoutReadTests {
    let directory = TemporaryDirectory()

    @Test func openingAnExistingStoreAndReadingALayoutWritesNothing() throws {
        let path = directory.sub("store")
        do {
            let store = try TabKeepStore(path: path)
            try store.registerCatalog(letterTabs)
            try store.edit(profile("p"), [.move(tab("g"), to: 0), .setBadge(tab("a"), 2)])
        }
        let data = path + "/data.mdb"
        let before = try Data(contentsOf: URL(fileURLWithPath: data))
        let modified = try FileManager.default.attributesOfItem(atPath: data)[.modificationDate] as? Date
        #expect(!Environment.isOpen(path: path), "the store must be closed for this test to mean anything")
        do {
            let store = try TabKeepStore(path: path)
            #expect(try store.layout(profile("p")).order.first == tab("g"))
            #expect(try store.layout(profile("never seen")).order == letterTabs.tabs.map(\.id))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: data)) == before)
        #expect(
            try FileManager.default.attributesOfItem(atPath: data)[.modificationDate] as? Date == modified)
    }

    @Test func aNewlyRegisteredCatalogIsReadAtOnceEvenThroughAnotherHandle() throws {
        let path = directory.sub("store")
        let store = try TabKeepStore(path: path)
        let other = try TabKeepStore(path: path)
        let reversed = try Catalog(letterTabs.tabs.reversed().map(\.id))
        try store.registerCatalog(letterTabs)
        try store.edit(profile("p"), .setHidden(tab("b"), true))
        #expect(try store.layout(profile("p")).order == tabs("a", "c", "d", "e", "f", "g"))
        try other.registerCatalog(reversed)
        #expect(try store.layout(profile("p")).order == tabs("g", "f", "e", "d", "c", "a"))
        try other.registerCatalog(letterTabs)
        #expect(try store.layout(profile("p")).order == tabs("a", "c", "d", "e", "f", "g"))
    }

    /// The registered catalog is checked again only when a read's snapshot (opening, transaction
    /// id) differs from the one that last checked it. A file replaced while the store was
    /// suspended can reach the same transaction id with another catalog: the reopen starts a new
    /// opening, so the catalog is read again.
    @Test func aCatalogSeenBeforeASuspendIsReadAgainFromAFileReplacedMeanwhile() async throws {
        let path = directory.sub("store")
        // lmdb mode: there a suspend closes the file, which can then be replaced.
        let store = try TabKeepStore(path: path, options: .init(locking: .lmdb))
        try store.registerCatalog(letterTabs)
        try await store.edit(profile("p"), .setHidden(tab("b"), true))
        // A copy of the files as they are now, then one commit on each: the same transaction id.
        let copy = directory.sub("copy")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path + "/data.mdb", toPath: copy + "/data.mdb")
        do {
            let other = try TabKeepStore(path: copy)
            try other.registerCatalog(try Catalog(letterTabs.tabs.reversed().map(\.id)))
            #expect(try other.environment.read { $0.id } == store.environment.read { $0.id } + 1)
        }
        try await store.edit(profile("p"), .select(.tab(tab("c"))))
        #expect(try store.layout(profile("p")).order == tabs("a", "c", "d", "e", "f", "g"))
        await store.suspend()
        try FileManager.default.removeItem(atPath: path + "/data.mdb")
        try FileManager.default.copyItem(atPath: copy + "/data.mdb", toPath: path + "/data.mdb")
        #expect(try store.layout(profile("p")).order == tabs("g", "f", "e", "d", "c", "a"))
    }

    @Test func aMissingOrCorruptCatalogIsReportedAsBefore() throws {
        let store = try TabKeepStore(path: directory.sub("store"))
        #expect(throws: TabKeepError.noCatalog(.main)) { try store.layout(profile("p")) }
        let catalogs = try store.environment.database("catalogs")
        try store.environment.write { txn in try txn.put(catalogs, key: Array("main".utf8), value: [1, 0x80])
        }
        let expected = try #require(throws: DocumentDecodingError.self) { try Catalog(decoding: [1, 0x80]) }
        #expect(throws: TabKeepError.corruptCatalog(.main, expected)) { try store.layout(profile("p")) }
    }

    @Test func aCorruptDocumentIsReportedWithTheFullDecodersError() throws {
        let store = try TabKeepStore(path: directory.sub("store"))
        try store.registerCatalog(letterTabs)
        try store.edit(profile("p"), [.move(tab("d"), to: 0), .select(.tab(tab("c")))])
        let documents = store.documentsDatabase
        let key = DocumentKey(profile: profile("p"), bar: .main)
        let good = try #require(
            try store.environment.read { txn in try txn.get(documents, key: store.documentRecordKey(key)) })
        // A truncation, a wrong format byte and a trailing byte: each refused with the full decoder's
        // words (its stored layout gone too: with it, a launch read would answer from it).
        for bad in [Array(good.dropLast()), [9] + good.dropFirst(), good + [0]] {
            try store.environment.write { txn in
                try txn.put(documents, key: store.documentRecordKey(key), value: bad)
                _ = try txn.delete(documents, key: store.layoutRecordKey(key))
            }
            let expected = try #require(throws: DocumentDecodingError.self) {
                try TabBarDocument(decoding: bad)
            }
            #expect(throws: TabKeepError.corruptDocument(key, expected)) { try store.layout(profile("p")) }
            #expect(throws: TabKeepError.corruptDocument(key, expected)) {
                try store.layout(profile("p"), catalog: letterTabs)
            }
        }
    }

    /// A stored layout builds its arrays and dictionaries on access: each read gives what the
    /// document resolves to, reads from many tasks at once agree, the per-tab badge reads answer
    /// as the dictionaries do, and setting one property keeps every other.
    @Test func aStoredLayoutReadsAsItsDocumentFromAnyTaskAndSettingOnePropertyKeepsTheOthers() async throws {
        let store = try TabKeepStore(path: directory.sub("store"))
        try store.registerCatalog(letterTabs)
        let user = profile("p")
        try await store.edit(
            user,
            [
                .move(tab("g"), to: 0), .setHidden(tab("b"), true), .setCustomizable([tab("g"), tab("c")]),
                .setBadge(tab("a"), 3), .setBadgeText(tab("d"), "new"), .select(.tab(tab("c"))),
            ])
        let expected = try #require(try store.document(user)).layout(catalog: letterTabs)
        let stored = try store.layout(user)
        #expect(stored.order == tabs("g", "a", "c", "d", "e", "f"))
        #expect(stored.hidden == tabs("b"))
        #expect(stored.customizable == tabs("g", "c"))
        #expect(stored.badges == [tab("a"): 3] && stored.badgeTexts == [tab("d"): "new"])
        #expect(stored.selection == .tab(tab("c")))
        #expect(stored == expected && stored.hashValue == expected.hashValue)
        #expect(stored.badge(for: tab("a")) == 3 && stored.badge(for: tab("d")) == nil)
        #expect(stored.badgeText(for: tab("d")) == "new" && stored.badgeText(for: tab("a")) == nil)
        // The same layout, its properties first read from many tasks at once.
        let shared = try store.layout(user)
        let reads = await withTaskGroup(of: Layout.self) { group in
            for task in 0..<16 {
                group.addTask {
                    // Each task asks in another order, so that every property is built by some task.
                    let rebuilt = Layout(
                        order: task % 2 == 0 ? shared.order : [], hidden: shared.hidden,
                        customizable: shared.customizable, selection: shared.selection, badges: shared.badges,
                        badgeTexts: shared.badgeTexts)
                    return task % 2 == 0
                        ? rebuilt
                        : Layout(
                            order: shared.order, hidden: rebuilt.hidden, customizable: rebuilt.customizable,
                            selection: rebuilt.selection, badges: rebuilt.badges,
                            badgeTexts: rebuilt.badgeTexts)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(reads.count == 16 && reads.allSatisfy { $0 == expected })
        // Setting one property keeps the others as they were read.
        var changed = try store.layout(user)
        changed.badges[tab("e")] = 1
        #expect(changed.badges == [tab("a"): 3, tab("e"): 1])
        #expect(changed.order == expected.order && changed.hidden == expected.hidden)
        #expect(changed.customizable == expected.customizable && changed.selection == expected.selection)
        #expect(changed.badgeTexts == expected.badgeTexts && changed != expected)
        var reordered = try store.layout(user)
        reordered.order.removeFirst()
        #expect(reordered.order == tabs("a", "c", "d", "e", "f") && reordered.badges == expected.badges)
    }

    /// A bar too large for a layout's inline bytes (a catalog of 120 tabs, badges and texts on
    /// many) reads as its document resolves, through the spilled bytes.
    @Test func aLargeBarReadsAsItsDocumentPastTheInlineBytes() throws {
        let tabs = try (0..<120).map { try TabID("tab-\($0)") }
        let catalog = try Catalog(tabs)
        let store = try TabKeepStore(path: directory.sub("store"))
        try store.registerCatalog(catalog)
        let user = profile("p")
        var edits: [TabBarEdit] = [
            .move(tabs[100], to: 0), .setHidden(tabs[7], true), .select(.tab(tabs[50])),
        ]
        for index in stride(from: 0, to: 120, by: 3) {
            edits.append(.setBadge(tabs[index], index + 1))
            edits.append(.setBadgeText(tabs[index + 1], "t\(index)"))
        }
        try store.edit(user, edits)
        let expected = try #require(try store.document(user)).layout(catalog: catalog)
        let stored = try store.layout(user)
        #expect(stored == expected)
        #expect(stored.order.first == tabs[100] && stored.hidden == [tabs[7]] && stored.badges.count == 40)
        #expect(stored.badge(for: tabs[99]) == 100 && stored.badgeText(for: tabs[100]) == "t99")
    }
}
