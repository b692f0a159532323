import Foundation
import TabKeepTestSupport
import Testing

@testable import TabKeep

/// Scenario tests of `TabBarCoordinator` on the headless model, with real stores in temporary directories.
@MainActor
@Suite("TabBar coordinator")
struct TabBarCoordinatorTests {
    // MARK: Fixtures

    /// A store in a fresh temporary directory, removed when the test ends.
    final class TemporaryStore {
        let directory = TemporaryDirectory()
        let store: TabKeepStore

        init() throws {
            store = try TabKeepStore(
                directory: URL(fileURLWithPath: directory.sub("store"), isDirectory: true),
                options: .init(durability: .deferred, pollInterval: .milliseconds(20)))
        }
    }

    /// One run of the app: a fresh tab bar controller and its coordinator, attached.
    @MainActor
    struct Launch {
        let model: TabBarControllerModel
        let coordinator: TabBarCoordinator

        init(_ store: TabKeepStore, _ catalog: Catalog, profile: ProfileID) throws {
            model = TabBarControllerModel()
            coordinator = TabBarCoordinator(store: store, profile: profile, catalog: catalog, host: model)
            try coordinator.attach()
        }

        /// The app goes away: its edits are committed, then it stops following.
        func quit() async throws {
            try await coordinator.flush()
            coordinator.detach()
        }
    }

    let profile = try! ProfileID("user-42")

    static func ids(_ names: String...) throws -> [TabID] { try ids(names) }
    static func ids(_ names: [String]) throws -> [TabID] {
        try names.map { name throws(IdentifierError) in try TabID(name) }
    }
    static func id(_ name: String) throws -> TabID { try TabID(name) }

    /// A seven-tab app: four on the bar, More, three under More.
    static func barAndMoreCatalog() throws -> Catalog {
        try Catalog(ids("home", "search", "inbox", "library", "profile", "settings", "help"))
    }

    /// Waits for `condition`, polling; false when `timeout` passes first. Never asserts a time.
    func eventually(timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// The position entries of the stored document, by tab.
    func positions(_ store: TabKeepStore) throws -> [TabID: Entry] {
        var result: [TabID: Entry] = [:]
        for entry in try store.document(profile)?.entries ?? [] {
            if case .position(let tab) = entry.key { result[tab] = entry }
        }
        return result
    }

    // MARK: Attach

    @Test func attachShowsStoredOrderAndStoredCustomizableSubsetNotAllTabs() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let catalog = try Self.barAndMoreCatalog()
        let (inbox, settings, help) = try (Self.id("inbox"), Self.id("settings"), Self.id("help"))
        try store.edit(
            profile, catalog: catalog,
            [
                .reorder(Self.ids("inbox", "home", "search", "library", "profile", "settings", "help")),
                .setCustomizableFlag(settings, false), .setCustomizableFlag(help, false),
            ])
        let layout = try store.layout(profile, catalog: catalog)

        let launch = try Launch(store, catalog, profile: profile)

        #expect(launch.model.tabIDs == layout.order)
        #expect(launch.model.tabIDs.first == inbox)
        #expect(launch.model.customizableTabIDs == layout.customizable)
        #expect(
            launch.model.customizableTabIDs == (try Self.ids("inbox", "home", "search", "library", "profile"))
        )
        #expect(launch.model.customizableTabIDs != launch.model.tabIDs)
        #expect(launch.model.moreTabIDs == (try Self.ids("profile", "settings", "help")))
        #expect(try store.catalog() == catalog)  // registered on attach
    }

    @Test func assigningTheListForAFeatureFlagReappliesTheStoredSubset() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let catalog = try Self.barAndMoreCatalog()
        try store.edit(profile, catalog: catalog, .setCustomizableFlag(Self.id("help"), false))
        let launch = try Launch(store, catalog, profile: profile)

        // The app turns a flag off and assigns its list: UIKit resets the subset to the whole list.
        try launch.model.setTabIDs(Self.ids("home", "search", "inbox", "help", "beta"))

        // The stored subset comes back; `beta` is not in the catalog, so it is not customizable.
        #expect(launch.model.customizableTabIDs == (try Self.ids("home", "search", "inbox")))
    }

    // MARK: Selection

    @Test func selectionIsRestoredByIdentityForATabUnderMoreAndForMoreItself() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let catalog = try Self.barAndMoreCatalog()
        let settings = try Self.id("settings")

        var launch = try Launch(store, catalog, profile: profile)
        try launch.model.userTap(.tab(settings))  // a row in More's list
        try await launch.quit()

        launch = try Launch(store, catalog, profile: profile)
        #expect(launch.model.selection == .tab(settings))
        #expect(launch.model.selectedIndex == 5)
        #expect(launch.model.tabBar.selectedItem == .more)

        try launch.model.userTap(.more)
        try await launch.quit()

        launch = try Launch(store, catalog, profile: profile)
        #expect(launch.model.selection == .more)
        #expect(launch.model.selectedIndex == nil)

        launch.model.selectedIndex = 2  // programmatic selections are recorded too
        try await launch.quit()
        #expect(try store.layout(profile, catalog: catalog).selection == .tab(Self.id("inbox")))
    }

    @Test func whenTheStoredTabIsGoneUIKitsFallbackApplies() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let catalog = try Self.barAndMoreCatalog()
        var launch = try Launch(store, catalog, profile: profile)
        try launch.model.userTap(.tab(Self.id("help")))
        try await launch.quit()

        // The next version drops `help`: a fresh controller selects its first tab.
        let smaller = try Catalog(Self.ids("home", "search", "inbox", "library", "profile", "settings"))
        launch = try Launch(store, smaller, profile: profile)
        #expect(launch.model.selection == .tab(try Self.id("home")))
        #expect(launch.model.selectedIndex == 0)
    }

    @Test func theFallbackAfterAnAssignmentIsRecordedBecauseTheUserSawIt() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let catalog = try Self.barAndMoreCatalog()
        var launch = try Launch(store, catalog, profile: profile)
        try launch.model.userTap(.tab(Self.id("library")))

        // A flag removes `library` (index 3): UIKit keeps the index, so `profile` is selected.
        try launch.model.setTabIDs(Self.ids("home", "search", "inbox", "profile", "settings", "help"))
        #expect(launch.model.selection == .tab(try Self.id("profile")))
        try await launch.quit()

        launch = try Launch(store, catalog, profile: profile)
        #expect(launch.model.selection == .tab(try Self.id("profile")))
    }

    // MARK: Order

    @Test func orderIsRecordedOnlyWhenCustomizingEndsChangedAndAsTheMinimalMoves() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let catalog = try Self.barAndMoreCatalog()
        let (search, settings, help) = try (Self.id("search"), Self.id("settings"), Self.id("help"))
        let launch = try Launch(store, catalog, profile: profile)
        let model = launch.model

        // Edit, drag settings up and back down, Done: changed is false, nothing is written.
        try model.beginCustomizing()
        try model.moveTab(settings, to: 1)
        try model.moveTab(settings, to: 5)
        try model.endCustomizing()
        try await launch.coordinator.flush()
        #expect(try store.document(profile) == nil)

        // Drag help to the second place: only help gets a position; no other tab gets an entry.
        try model.beginCustomizing()
        try model.moveTab(help, to: 1)
        try model.endCustomizing()
        try await launch.coordinator.flush()
        let first = try positions(store)
        #expect(Set(first.keys) == [help])
        #expect(try store.layout(profile, catalog: catalog).order == model.tabIDs)

        // Drag search to the end: only search's position entry changes.
        try model.beginCustomizing()
        try model.moveTab(search, to: 6)
        try model.endCustomizing()
        try await launch.coordinator.flush()
        let second = try positions(store)
        #expect(Set(second.keys.filter { second[$0] != first[$0] }) == [search])
        #expect(try store.layout(profile, catalog: catalog).order == model.tabIDs)
        #expect(
            model.tabIDs
                == (try Self.ids("home", "help", "inbox", "library", "profile", "settings", "search")))
    }

    @Test func aRemoteMoveThatArrivesWhileTheUserCustomizesSurvivesTheSession() async throws {
        let (temporaryA, temporaryB) = try (TemporaryStore(), TemporaryStore())
        let (phone, tablet) = (temporaryA.store, temporaryB.store)
        let catalog = try Self.barAndMoreCatalog()
        let (profileTab, settings) = try (Self.id("profile"), Self.id("settings"))
        let launch = try Launch(phone, catalog, profile: profile)
        let model = launch.model
        try model.beginCustomizing()
        // The tablet moves profile to the third place; a sync brings it in while the sheet is open.
        try await tablet.edit(profile, catalog: catalog, .move(profileTab, to: 2))
        let delta = try tablet.delta(after: phone.versionVectors())
        try phone.apply(delta)
        // The user moves settings to the second place and taps Done.
        try model.moveTab(settings, to: 1)
        try model.endCustomizing()
        try await launch.coordinator.flush()
        let expected = try Self.ids("home", "settings", "search", "profile", "inbox", "library", "help")
        #expect(try phone.layout(profile, catalog: catalog).order == expected)
        // The host follows the store once the session's write is in.
        #expect(await eventually { model.tabIDs == expected })
        try await launch.coordinator.flush()
    }

    // MARK: Badges

    @Test func aBadgeIncrementMergedFromAnotherDeviceAppearsWithoutRelaunch() async throws {
        let (temporaryA, temporaryB) = try (TemporaryStore(), TemporaryStore())
        let (storeA, storeB) = (temporaryA.store, temporaryB.store)
        let catalog = try Self.barAndMoreCatalog()
        let inbox = try Self.id("inbox")
        let launch = try Launch(storeA, catalog, profile: profile)

        try await storeA.edit(profile, catalog: catalog, .setBadge(inbox, 2))
        #expect(await eventually { launch.model.badgeValue(for: inbox) == "2" })

        // Device B counts three new messages; its delta arrives by sync.
        try await storeB.edit(profile, catalog: catalog, .addToBadge(inbox, 3))
        let delta = try storeB.delta(after: storeA.versionVectors())
        try storeA.apply(delta)
        #expect(await eventually { launch.model.badgeValue(for: inbox) == "5" })

        // A badge text wins over the count.
        try await storeA.edit(profile, catalog: catalog, .setBadgeText(inbox, "new"))
        #expect(await eventually { launch.model.badgeValue(for: inbox) == "new" })
        try await launch.coordinator.flush()
    }

    // MARK: The walkthrough of Docs/Guide.md ("Keeping a user's tab bar")

    @Test func theReadmeWalkthroughOfASevenTabAppHolds() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let ids = try Self.ids("home", "search", "inbox", "library", "profile", "settings", "help")
        let catalog = try Catalog(
            tabs: [
                Catalog.Tab(ids[0], placement: .fixed),
                Catalog.Tab(ids[1]), Catalog.Tab(ids[2]), Catalog.Tab(ids[3]),
                Catalog.Tab(ids[4]), Catalog.Tab(ids[5]),
                Catalog.Tab(ids[6], customizable: false),
            ])
        var launch = try Launch(store, catalog, profile: profile)
        #expect(launch.model.visibleTabIDs == (try Self.ids("home", "search", "inbox", "library")))
        #expect(launch.model.moreTabIDs == (try Self.ids("profile", "settings", "help")))
        #expect(
            launch.model.customizableTabIDs
                == (try Self.ids("search", "inbox", "library", "profile", "settings")))

        try launch.model.beginCustomizing()
        try launch.model.moveTab(ids[5], to: 1)
        try launch.model.endCustomizing()
        try launch.model.userTap(.tab(ids[6]))
        try await launch.quit()
        let moved = try positions(store).filter { $0.value.stamp != .zero }
        #expect(Set(moved.keys) == [ids[5]])

        launch = try Launch(store, catalog, profile: profile)
        #expect(launch.model.visibleTabIDs == (try Self.ids("home", "settings", "search", "inbox")))
        #expect(launch.model.moreTabIDs == (try Self.ids("library", "profile", "help")))
        #expect(launch.model.selection == .tab(ids[6]))
        #expect(launch.model.selectedIndex == 6)
        #expect(
            launch.model.customizableTabIDs
                == (try Self.ids("settings", "search", "inbox", "library", "profile")))
        try await launch.quit()
    }

    // MARK: Following the store

    @Test func aReorderAndSelectionSyncedFromAnotherDeviceAreFollowedWithoutEchoingThem() async throws {
        let (temporaryA, temporaryB) = try (TemporaryStore(), TemporaryStore())
        let (storeA, storeB) = (temporaryA.store, temporaryB.store)
        let catalog = try Self.barAndMoreCatalog()
        let launch = try Launch(storeA, catalog, profile: profile)
        try launch.model.userTap(.tab(Self.id("inbox")))
        try await launch.coordinator.flush()
        let writtenByA = try storeA.versionVector()[storeA.replicaID]

        // On device B the user moved help first and selected settings (under More).
        let order = try Self.ids("help", "home", "search", "inbox", "library", "profile", "settings")
        try await storeB.edit(
            profile, catalog: catalog, [.reorder(order), .select(.tab(Self.id("settings")))])
        let delta = try storeB.delta(after: storeA.versionVectors())
        try storeA.apply(delta)

        let settings = try Self.id("settings")
        #expect(await eventually { launch.model.tabIDs == order && launch.model.selection == .tab(settings) })
        // Re-applied after the coordinator's own assignment.
        #expect(launch.model.customizableTabIDs == order)
        // The host followed inside the coordinator's refresh, on this actor: any echo it caused was
        // queued by then, and flush waits until every queued write is committed.
        try await launch.coordinator.flush()
        #expect(try storeA.versionVector()[storeA.replicaID] == writtenByA)  // A wrote nothing back
    }

    // MARK: Catalog changes

    @Test func relaunchWithACatalogThatGainedLostAndRenamedTabsFollowsTheLayoutRules() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let home = try Self.id("home")
        let version1 = try Catalog(
            tabs: [Catalog.Tab(home, placement: .fixed)]
                + Self.ids("chat", "feed", "search", "settings").map { Catalog.Tab($0) })
        var launch = try Launch(store, version1, profile: profile)
        try launch.model.beginCustomizing()
        try launch.model.moveTab(Self.id("settings"), to: 1)
        try launch.model.moveTab(Self.id("feed"), to: 4)
        try launch.model.endCustomizing()
        try launch.model.userTap(.tab(Self.id("chat")))
        #expect(launch.model.tabIDs == (try Self.ids("home", "settings", "chat", "search", "feed")))
        try await launch.quit()

        // Version 2 renames chat to messages, drops feed and adds explore after search.
        let version2 = try Catalog(
            tabs: [Catalog.Tab(home, placement: .fixed)]
                + Self.ids("messages", "search", "explore", "settings").map { Catalog.Tab($0) },
            renames: [Self.id("chat"): Self.id("messages")])
        launch = try Launch(store, version2, profile: profile)
        // The user's order reads through the rename; the new tab goes right after its catalog predecessor.
        #expect(launch.model.tabIDs == (try Self.ids("home", "settings", "messages", "search", "explore")))
        #expect(launch.model.selection == .tab(try Self.id("messages")))
        #expect(
            launch.model.customizableTabIDs == (try Self.ids("settings", "messages", "search", "explore")))
        try await launch.quit()

        // Version 3 brings feed back: it returns to the place the user gave it.
        let version3 = try Catalog(
            tabs: [Catalog.Tab(home, placement: .fixed)]
                + Self.ids("messages", "search", "explore", "settings", "feed").map { Catalog.Tab($0) },
            renames: [Self.id("chat"): Self.id("messages")])
        launch = try Launch(store, version3, profile: profile)
        #expect(
            launch.model.tabIDs == (try Self.ids("home", "settings", "messages", "search", "explore", "feed"))
        )
        try await launch.quit()
    }
}
