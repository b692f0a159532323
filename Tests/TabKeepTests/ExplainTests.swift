import Foundation
import TabKeepTestSupport
import Testing

@testable import TabKeep

/// `TabKeepStore.explain`: every fact of a bar traced back to the edit (device, time) that made it,
/// checked against a known history on three stores that sync.
@Suite("explain: why is this tab here")
struct ExplainTests {
    /// The app's first catalog, and the update that renames chat to messages and adds wallet.
    static let version1 = try! Catalog(
        tabs: [
            Catalog.Tab(tab("home"), placement: .fixed), Catalog.Tab(tab("inbox")), Catalog.Tab(tab("chat")),
            Catalog.Tab(tab("search")), Catalog.Tab(tab("library")), Catalog.Tab(tab("settings")),
            Catalog.Tab(tab("labs"), placement: .optional),
        ])
    static let version2 = try! Catalog(
        tabs: [
            Catalog.Tab(tab("home"), placement: .fixed), Catalog.Tab(tab("inbox")),
            Catalog.Tab(tab("messages")), Catalog.Tab(tab("search")), Catalog.Tab(tab("library")),
            Catalog.Tab(tab("wallet")), Catalog.Tab(tab("settings")),
            Catalog.Tab(tab("labs"), placement: .optional),
        ],
        renames: [tab("chat"): tab("messages")])

    let alice = profile("alice")

    /// The dots one step of the history wrote: a provenance comes from the step when its dot does.
    struct Step {
        var replica: ReplicaID
        var sequences: Range<UInt64>

        func wrote(_ provenance: Provenance?) -> Bool {
            guard let provenance else { return false }
            return provenance.origin == replica && provenance.dot.replica == replica
                && sequences.contains(provenance.dot.sequence)
        }
    }

    /// Runs `edits` on `store` and returns the dots they took.
    func step(_ store: TabKeepStore, catalog: Catalog, _ edits: [TabBarEdit]) throws -> Step {
        let before = try store.versionVector()[store.replicaID]
        try store.edit(alice, catalog: catalog, edits)
        let after = try store.versionVector()[store.replicaID]
        #expect(after > before)
        return Step(replica: store.replicaID, sequences: (before + 1)..<(after + 1))
    }

    /// Both ways, through the store's replication API (what TabKeepSync carries).
    func sync(_ first: TabKeepStore, _ second: TabKeepStore) throws {
        let toFirst = try second.delta(after: first.versionVectors())
        try first.apply(toFirst)
        let toSecond = try first.delta(after: second.versionVectors())
        try second.apply(toSecond)
    }

    /// The history every store must explain the same way, with the steps that wrote each fact.
    struct History {
        var moveSettings: Step
        var hideSearchAndCount: Step
        var moveLibraryAndSelectChat: Step
        var resetBadge: Step
        var tabletLateIncrement: Step
        var messagesNotCustomizable: Step
    }

    /// phone moves settings, hides search, counts 2; tablet moves library, counts 3, selects chat;
    /// laptop resets the badge to 10 and counts 1 while the tablet counts 4 more; the app updates
    /// on the phone (chat renamed messages, wallet new) and messages stops being customizable.
    func makeHistory(phone: TabKeepStore, tablet: TabKeepStore, laptop: TabKeepStore) throws -> History {
        let inbox = tab("inbox")
        let moveSettings = try step(phone, catalog: Self.version1, [.move(tab("settings"), to: 1)])
        let hideSearchAndCount = try step(
            phone, catalog: Self.version1, [.setHidden(tab("search"), true), .addToBadge(inbox, 2)])
        try sync(phone, tablet)
        let moveLibraryAndSelectChat = try step(
            tablet, catalog: Self.version1,
            [.move(tab("library"), to: 1), .addToBadge(inbox, 3), .select(.tab(tab("chat")))])
        try sync(tablet, laptop)
        let resetBadge = try step(
            laptop, catalog: Self.version1, [.setBadge(inbox, 10), .addToBadge(inbox, 1)])
        let tabletLateIncrement = try step(tablet, catalog: Self.version1, [.addToBadge(inbox, 4)])
        try sync(phone, tablet)
        try phone.registerCatalog(Self.version2)
        let messagesNotCustomizable = try step(
            phone, catalog: Self.version2, [.setCustomizableFlag(tab("messages"), false)])
        try sync(phone, tablet)
        try sync(tablet, laptop)
        try sync(phone, tablet)
        return History(
            moveSettings: moveSettings, hideSearchAndCount: hideSearchAndCount,
            moveLibraryAndSelectChat: moveLibraryAndSelectChat, resetBadge: resetBadge,
            tabletLateIncrement: tabletLateIncrement, messagesNotCustomizable: messagesNotCustomizable)
    }

    @Test func everyTabIsExplainedByTheEditThatMadeItOnEveryDevice() throws {
        let directory = TemporaryDirectory()
        let phone = try TabKeepStore(path: directory.sub("phone"))
        let tablet = try TabKeepStore(path: directory.sub("tablet"))
        let laptop = try TabKeepStore(path: directory.sub("laptop"))
        let history = try makeHistory(phone: phone, tablet: tablet, laptop: laptop)

        for store in [phone, tablet, laptop] {
            let explanation = try #require(try store.explain(alice, catalog: Self.version2))
            let layout = try store.layout(alice, catalog: Self.version2)
            #expect(explanation.layout == layout)
            #expect(explanation.thisDevice == store.replicaID)
            #expect(explanation.tabs.map(\.tab) == layout.order + layout.hidden)
            #expect(
                explanation.tabs.map(\.index) == layout.order.indices.map { $0 }
                    + layout.hidden.map { _ in nil })
            #expect(explanation.replicas.first == store.replicaID)
            #expect(Set(explanation.replicas) == [phone.replicaID, tablet.replicaID, laptop.replicaID])
            #expect(explanation.notInCatalog.isEmpty)
            #expect(explanation.clears.isEmpty)

            let home = try #require(explanation.tab(tab("home")))
            #expect(home.place == .fixed(catalogIndex: 0))
            #expect(home.customizable == .init(value: false, source: .placement(.fixed)))
            #expect(home.hidden == .init(value: false, source: .placement(.fixed)))

            // Two moves: settings on the phone, library on the tablet, each with its device and dot.
            let settings = try #require(explanation.tab(tab("settings")))
            guard case .moved(let settingsMove, let settingsSlot) = settings.place else {
                Issue.record("settings: \(settings.place)")
                continue
            }
            #expect(history.moveSettings.wrote(settingsMove))
            #expect(settingsMove.isThisDevice == (store === phone))
            // Moved to the front: the gap before every slot, ahead of inbox.
            #expect(settingsSlot == .init(after: nil, next: tab("inbox")))
            let library = try #require(explanation.tab(tab("library")))
            guard case .moved(let libraryMove, _) = library.place else {
                Issue.record("library: \(library.place)")
                continue
            }
            #expect(history.moveLibraryAndSelectChat.wrote(libraryMove))
            #expect(libraryMove.isThisDevice == (store === tablet))
            #expect(libraryMove.stamp > settingsMove.stamp)
            #expect(libraryMove.date >= settingsMove.date)
            // wallet, new, stands in its own catalog slot (after library's, which library left).
            #expect(layout.order == tabs("home", "library", "settings", "inbox", "messages", "wallet"))
            #expect(layout.hidden == tabs("search", "labs"))

            // No tab but the moved ones has a position: a move writes nothing for its neighbours.
            for id in ["inbox", "search", "labs"] {
                let explained = try #require(explanation.tab(tab(id)))
                guard case .catalogDefault = explained.place else {
                    Issue.record("\(id): \(explained.place)")
                    continue
                }
            }

            // The app update: chat reads as messages (the selection was written as chat), and wallet
            // is new, at its catalog default place after library.
            let messages = try #require(explanation.tab(tab("messages")))
            #expect(messages.formerIDs == [tab("chat")])
            guard case .catalogDefault = messages.place else {
                Issue.record("messages: \(messages.place)")
                continue
            }
            guard case .edited(let notCustomizable) = messages.customizable.source else {
                Issue.record("messages customizable: \(messages.customizable)")
                continue
            }
            #expect(messages.customizable.value == false)
            #expect(history.messagesNotCustomizable.wrote(notCustomizable))
            #expect(notCustomizable.writtenAs == nil)
            #expect(!layout.customizable.contains(tab("messages")))
            let wallet = try #require(explanation.tab(tab("wallet")))
            #expect(wallet.place == .catalogDefault(after: tab("library")))
            #expect(wallet.formerIDs.isEmpty)
            #expect(wallet.customizable == .init(value: true, source: .catalogDefault))
            #expect(wallet.hidden == .init(value: false, source: .catalogDefault))
            #expect(wallet.badge == nil && wallet.badgeText == nil)

            // The hidden tab: hidden by the phone; labs hidden by its optional placement's default.
            let search = try #require(explanation.tab(tab("search")))
            #expect(search.index == nil)
            guard case .edited(let hiding) = search.hidden.source else {
                Issue.record("search hidden: \(search.hidden)")
                continue
            }
            #expect(search.hidden.value)
            #expect(history.hideSearchAndCount.wrote(hiding))
            let labs = try #require(explanation.tab(tab("labs")))
            #expect(labs.hidden == .init(value: true, source: .catalogDefault))

            // The selection: chat on the tablet, read as messages.
            #expect(explanation.selection.stored == .tab(tab("messages")))
            #expect(explanation.selection.shown == .tab(tab("messages")))
            #expect(history.moveLibraryAndSelectChat.wrote(explanation.selection.provenance))
            #expect(explanation.selection.provenance?.writtenAs == tab("chat"))

            // The badge: reset to 10 on the laptop after seeing phone 2 and tablet 3; since then the
            // laptop counted 1 and the tablet 4 more (its total 7, of which the reset had seen 3).
            let inbox = try #require(explanation.tab(tab("inbox")))
            let badge = try #require(inbox.badge)
            #expect(badge.reset?.count == 10)
            #expect(badge.reset?.seen == [phone.replicaID: 2, tablet.replicaID: 3])
            #expect(history.resetBadge.wrote(badge.reset?.provenance))
            #expect(badge.baseline == .reset)
            let increments = Dictionary(uniqueKeysWithValues: badge.increments.map { ($0.replica, $0) })
            #expect(increments.count == 3)
            #expect(increments[phone.replicaID].map { [$0.total, $0.baseline, $0.counted] } == [2, 2, 0])
            #expect(increments[tablet.replicaID].map { [$0.total, $0.baseline, $0.counted] } == [7, 3, 4])
            #expect(increments[laptop.replicaID].map { [$0.total, $0.baseline, $0.counted] } == [1, 0, 1])
            #expect(history.hideSearchAndCount.wrote(increments[phone.replicaID]?.provenance))
            #expect(history.tabletLateIncrement.wrote(increments[tablet.replicaID]?.provenance))
            #expect(history.resetBadge.wrote(increments[laptop.replicaID]?.provenance))
            #expect(badge.count == 15)
            #expect(layout.badges[tab("inbox")] == 15)
        }
    }

    @Test func aCatalogThatLacksStoredTabsListsThemAsNotInCatalog() throws {
        let directory = TemporaryDirectory()
        let phone = try TabKeepStore(path: directory.sub("phone"))
        let tablet = try TabKeepStore(path: directory.sub("tablet"))
        let laptop = try TabKeepStore(path: directory.sub("laptop"))
        _ = try makeHistory(phone: phone, tablet: tablet, laptop: laptop)
        // The old app version knows nothing of the rename: messages' flag is a tab it does not offer.
        let old = try #require(try phone.explain(alice, catalog: Self.version1))
        #expect(old.notInCatalog == [tab("messages")])
        #expect(old.tab(tab("chat"))?.formerIDs == [])
        #expect(old.selection.shown == .tab(tab("chat")))
        let small = try Catalog(tabs: [
            Catalog.Tab(tab("home"), placement: .fixed), Catalog.Tab(tab("inbox")),
        ])
        let narrow = try #require(try phone.explain(alice, catalog: small))
        // Without the rename, chat's entries are chat's: another tab this catalog lacks.
        #expect(narrow.notInCatalog == tabs("library", "messages", "search", "settings"))
        #expect(narrow.tabs.map(\.tab) == tabs("home", "inbox"))
        #expect(narrow.selection.stored == .tab(tab("chat")))
        #expect(narrow.selection.shown == Selection.none)
    }

    @Test func aResetIsExplainedAsAClearAndAMoveAfterItIsTheOnlyPosition() throws {
        let directory = TemporaryDirectory()
        let phone = try TabKeepStore(path: directory.sub("phone"))
        let tablet = try TabKeepStore(path: directory.sub("tablet"))
        let catalog = Self.version1
        _ = try step(phone, catalog: catalog, [.move(tab("settings"), to: 1), .setHidden(tab("chat"), true)])
        try sync(phone, tablet)
        let reset = try step(tablet, catalog: catalog, [.reset])
        // Concurrent with the reset, which never sees it: it survives.
        let offline = try step(phone, catalog: catalog, [.setHidden(tab("library"), true)])
        try sync(phone, tablet)
        // After the reset, a move on the tablet writes the moved tab's place only.
        let move = try step(tablet, catalog: catalog, [.move(tab("search"), to: 1)])
        try sync(phone, tablet)

        for store in [phone, tablet] {
            let explanation = try #require(try store.explain(alice, catalog: catalog))
            let clear = try #require(explanation.clears.first)
            #expect(explanation.clears.count == 1)
            #expect(reset.wrote(clear.provenance))
            #expect(clear.provenance.isThisDevice == (store === tablet))
            #expect(clear.covered[phone.replicaID] > 0)
            #expect(
                !clear.covered.contains(
                    offline.sequences.map { Dot(replica: phone.replicaID, sequence: $0) }[0]))
            #expect(clear.removedTabs.contains(tab("chat")))
            #expect(clear.badgeTotals.isEmpty)

            let search = try #require(explanation.tab(tab("search")))
            guard case .moved(let moved, _) = search.place else {
                Issue.record("search: \(search.place)")
                continue
            }
            #expect(move.wrote(moved))
            #expect(search.index == 1)
            for id in ["inbox", "settings"] {
                let explained = try #require(explanation.tab(tab(id)))
                guard case .catalogDefault = explained.place else {
                    Issue.record("\(id) after the reset: \(explained.place)")
                    continue
                }
            }
            // The hide the reset saw is gone; the one it never saw stands.
            #expect(explanation.tab(tab("chat"))?.hidden == .init(value: false, source: .catalogDefault))
            let library = try #require(explanation.tab(tab("library")))
            guard case .edited(let hiding) = library.hidden.source else {
                Issue.record("library hidden: \(library.hidden)")
                continue
            }
            #expect(offline.wrote(hiding))
        }
    }

    @Test func nothingStoredIsNilAndNoCatalogIsAnError() throws {
        let directory = TemporaryDirectory()
        let store = try TabKeepStore(path: directory.sub("store"))
        #expect(try store.explain(alice, catalog: Self.version1) == nil)
        try store.edit(alice, catalog: Self.version1, .select(.tab(tab("inbox"))))
        #expect(try store.explain(profile("bob"), catalog: Self.version1) == nil)
        #expect(try store.explain(alice, bar: bar("side"), catalog: Self.version1) == nil)
        #expect(throws: TabKeepError.noCatalog(.main)) { try store.explain(alice) }
        try store.registerCatalog(Self.version1)
        let explanation = try #require(try store.explain(alice))
        #expect(explanation.catalog == Self.version1)
        #expect(explanation.selection.provenance?.isThisDevice == true)
        #expect(explanation.tabs.allSatisfy { $0.badge == nil })
        #expect(explanation.tab(tab("inbox"))?.place == .catalogDefault(after: nil))
        #expect(explanation.tab(tab("chat"))?.place == .catalogDefault(after: tab("inbox")))
    }
}
