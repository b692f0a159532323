import TabKeepTestSupport
import Testing

@testable import TabKeep

/// Records every delegate call, in order, and refuses taps on chosen items.
@MainActor
private final class RecordingDelegate: TabBarControllerModelDelegate {
    enum Call: Equatable {
        case shouldSelect(TabBarItem)
        case didSelect(TabBarItem)
        case willBeginCustomizing([TabID])
        case willEndCustomizing([TabID], changed: Bool)
        case didEndCustomizing([TabID], changed: Bool)
    }

    var calls: [Call] = []
    var refused: Set<TabBarItem> = []

    func tabBarController(_ controller: TabBarControllerModel, shouldSelect item: TabBarItem) -> Bool {
        calls.append(.shouldSelect(item))
        return !refused.contains(item)
    }
    func tabBarController(_ controller: TabBarControllerModel, didSelect item: TabBarItem) {
        calls.append(.didSelect(item))
    }
    func tabBarController(_ controller: TabBarControllerModel, willBeginCustomizing tabs: [TabID]) {
        calls.append(.willBeginCustomizing(tabs))
    }
    func tabBarController(
        _ controller: TabBarControllerModel, willEndCustomizing tabs: [TabID], changed: Bool
    ) {
        calls.append(.willEndCustomizing(tabs, changed: changed))
    }
    func tabBarController(
        _ controller: TabBarControllerModel, didEndCustomizing tabs: [TabID], changed: Bool
    ) {
        calls.append(.didEndCustomizing(tabs, changed: changed))
    }
}

/// Collects what a host reports, through the `TabBarHost` protocol only.
@MainActor
private final class EventLog {
    private(set) var recorded: [TabBarHostEvent] = []
    private var observation: TabBarObservation?

    init(_ host: some TabBarHost) {
        observation = host.observeChanges { [weak self] in self?.recorded.append($0) }
    }

    func cancel() { observation?.cancel() }
}

/// A model holding seven tabs a…g: a b c d show, e f g are under More; a is selected.
@MainActor
private func sevenTabModel() throws -> TabBarControllerModel {
    let model = TabBarControllerModel()
    try model.setTabIDs(tabs("a", "b", "c", "d", "e", "f", "g"))
    return model
}

@Suite("TabBar controller model")
@MainActor
struct TabBarModelTests {
    // MARK: Assigning the list

    @Test func assigningTheTabListResetsTheCustomizableSubsetToTheWholeList() throws {
        let model = try sevenTabModel()
        try model.setCustomizableTabIDs(tabs("e", "f"))
        #expect(model.customizableTabIDs == (try tabs("e", "f")))

        try model.setTabIDs(tabs("a", "b", "c", "d", "e", "f", "g", "h"))
        #expect(model.customizableTabIDs == model.tabIDs)

        try model.setCustomizableTabIDs(tabs("h"))
        try model.setTabIDs(model.tabIDs)  // even the same list resets it
        #expect(model.customizableTabIDs == (try tabs("a", "b", "c", "d", "e", "f", "g", "h")))
    }

    @Test func assignmentKeepsThePreviouslySelectedTabWhereverItMoved() throws {
        let model = TabBarControllerModel()
        try model.setTabIDs(tabs("a", "b", "c"))
        try model.setSelection(.tab(tab("c")))

        try model.setTabIDs(tabs("x", "c", "a"))
        #expect(model.selection == .tab(try tab("c")))
        #expect(model.selectedIndex == 1)
    }

    @Test func assignmentFallsBackToTheSameIndexWhenTheSelectedTabIsGone() throws {
        let model = TabBarControllerModel()
        try model.setTabIDs(tabs("a", "b", "c"))
        model.selectedIndex = 2

        try model.setTabIDs(tabs("w", "x", "y", "z"))
        #expect(model.selection == .tab(try tab("y")))
        #expect(model.selectedIndex == 2)
    }

    @Test func assignmentFallsBackToTheFirstTabWhenTheIndexIsGoneToo() throws {
        let model = TabBarControllerModel()
        try model.setTabIDs(tabs("a", "b", "c"))
        model.selectedIndex = 2

        try model.setTabIDs(tabs("x", "y"))
        #expect(model.selection == .tab(try tab("x")))
        #expect(model.selectedIndex == 0)
    }

    @Test func anEmptyListSelectsNothingAndTheNextListSelectsItsFirstTab() throws {
        let model = try sevenTabModel()
        model.selectedIndex = 3

        try model.setTabIDs([])
        #expect(model.selection == .none)
        #expect(model.selectedIndex == nil)

        try model.setTabIDs(tabs("p", "q"))
        #expect(model.selection == .tab(try tab("p")))
    }

    @Test func aSelectedMoreStaysSelectedOnlyWhileTheNewListStillNeedsMore() throws {
        let model = try sevenTabModel()
        try model.setSelection(.more)

        try model.setTabIDs(tabs("g", "f", "e", "d", "c", "b"))
        #expect(model.selection == .more)

        try model.setTabIDs(tabs("g", "f", "e"))
        #expect(model.selection == .tab(try tab("g")))
    }

    @Test func listsNamingATabTwiceAreRefusedAndChangeNothing() throws {
        let model = try sevenTabModel()
        try model.setCustomizableTabIDs(tabs("f"))

        #expect(throws: TabBarError.duplicateTab(try tab("a"))) {
            try model.setTabIDs(tabs("a", "b", "a"))
        }
        #expect(model.tabIDs == (try tabs("a", "b", "c", "d", "e", "f", "g")))
        #expect(model.customizableTabIDs == (try tabs("f")))

        #expect(throws: TabBarError.duplicateTab(try tab("e"))) {
            try model.setCustomizableTabIDs(tabs("e", "e"))
        }
        #expect(throws: TabBarError.unknownTab(try tab("z"))) {
            try model.setCustomizableTabIDs(tabs("e", "z"))
        }
        #expect(model.customizableTabIDs == (try tabs("f")))
    }

    @Test func theCustomizableSubsetIsKeptInListOrder() throws {
        let model = try sevenTabModel()
        try model.setCustomizableTabIDs(tabs("g", "b", "e"))
        #expect(model.customizableTabIDs == (try tabs("b", "e", "g")))
    }

    // MARK: More

    @Test func sevenTabsShowFourButtonsAndMore() throws {
        let model = try sevenTabModel()
        #expect(model.showsMore)
        #expect(model.visibleTabIDs == (try tabs("a", "b", "c", "d")))
        #expect(model.moreTabIDs == (try tabs("e", "f", "g")))
        #expect(model.tabBar.items == (try tabs("a", "b", "c", "d").map(TabBarItem.tab) + [.more]))
    }

    @Test func fiveTabsFitWithoutMore() throws {
        let model = TabBarControllerModel()
        try model.setTabIDs(tabs("a", "b", "c", "d", "e"))
        #expect(!model.showsMore)
        #expect(model.moreTabIDs.isEmpty)
        #expect(model.tabBar.items == (try tabs("a", "b", "c", "d", "e").map(TabBarItem.tab)))
        #expect(throws: TabBarError.noMoreItem) { try model.setSelection(.more) }
    }

    @Test func aWiderBarMovesTheLimitAndDropsASelectedMoreWhenEverythingFits() throws {
        let model = try sevenTabModel()
        try model.setSelection(.more)

        try model.setMaxVisible(8)
        #expect(model.visibleTabIDs == model.tabIDs)
        #expect(model.selection == .tab(try tab("a")))

        #expect(throws: TabBarError.invalidMaxVisible(1)) { try model.setMaxVisible(1) }
        #expect(model.maxVisible == 8)
        #expect(throws: TabBarError.invalidMaxVisible(0)) { try TabBarControllerModel(maxVisible: 0) }
        let narrow = try TabBarControllerModel(maxVisible: 3)
        try narrow.setTabIDs(tabs("a", "b", "c", "d"))
        #expect(narrow.visibleTabIDs == (try tabs("a", "b")))
    }

    @Test func moreSelectedHasNoSelectedIndex() throws {
        let model = try sevenTabModel()
        model.selectedIndex = 2
        try model.setSelection(.more)

        #expect(model.selection == .more)
        #expect(model.selectedIndex == nil)
        #expect(model.tabBar.selectedItem == .more)
    }

    @Test func moreCannotBeSelectedByIndex() throws {
        let model = try sevenTabModel()
        model.selectedIndex = 1

        model.selectedIndex = nil  // UIKit's NSNotFound, the "index" More reports: ignored
        #expect(model.selection == .tab(try tab("b")))

        model.selectedIndex = 4  // More's place on the bar, but index 4 is tab e
        #expect(model.selection == .tab(try tab("e")))
        #expect(model.selectedIndex == 4)
    }

    @Test func anIndexOutOfRangeIsIgnored() throws {
        let model = try sevenTabModel()
        model.selectedIndex = 6
        let log = EventLog(model)

        model.selectedIndex = 7
        model.selectedIndex = -1
        #expect(model.selection == .tab(try tab("g")))
        #expect(model.selectedIndex == 6)
        #expect(log.recorded.isEmpty)
    }

    @Test func tappingATabUnderMoreGivesItItsOwnIndex() throws {
        let model = try sevenTabModel()
        let delegate = RecordingDelegate()
        model.delegate = delegate

        try model.userTap(.tab(tab("f")))
        #expect(model.selection == .tab(try tab("f")))
        #expect(model.selectedIndex == 5)
        #expect(model.tabBar.selectedItem == .more)
        #expect(delegate.calls == [.shouldSelect(.tab(try tab("f"))), .didSelect(.tab(try tab("f")))])
    }

    // MARK: Taps and programmatic selection

    @Test func aTapAsksShouldSelectThenReportsDidSelect() throws {
        let model = try sevenTabModel()
        let delegate = RecordingDelegate()
        model.delegate = delegate

        #expect(try model.userTap(.tab(tab("c"))))
        #expect(model.selection == .tab(try tab("c")))
        #expect(try model.userTap(.more))
        #expect(model.selection == .more)
        #expect(
            delegate.calls == [
                .shouldSelect(.tab(try tab("c"))), .didSelect(.tab(try tab("c"))),
                .shouldSelect(.more), .didSelect(.more),
            ])
    }

    @Test func aRefusedTapSelectsNothingAndReportsNothing() throws {
        let model = try sevenTabModel()
        let delegate = RecordingDelegate()
        delegate.refused = [.tab(try tab("c"))]
        model.delegate = delegate
        let log = EventLog(model)

        #expect(try model.userTap(.tab(tab("c"))) == false)
        #expect(model.selection == .tab(try tab("a")))
        #expect(delegate.calls == [.shouldSelect(.tab(try tab("c")))])
        #expect(log.recorded.isEmpty)
    }

    @Test func tappingTheSelectedTabReportsDidSelectAgainButNoSelectionChange() throws {
        let model = try sevenTabModel()
        let delegate = RecordingDelegate()
        model.delegate = delegate
        let log = EventLog(model)

        try model.userTap(.tab(tab("a")))
        #expect(delegate.calls == [.shouldSelect(.tab(try tab("a"))), .didSelect(.tab(try tab("a")))])
        #expect(log.recorded.isEmpty)
    }

    @Test func programmaticSelectionAsksTheDelegateNothingAndTellsItNothing() throws {
        let model = try sevenTabModel()
        let delegate = RecordingDelegate()
        delegate.refused = [.tab(try tab("c")), .more]  // a question would block these
        model.delegate = delegate

        try model.setSelection(.tab(tab("c")))
        #expect(model.selection == .tab(try tab("c")))
        model.selectedIndex = 5
        #expect(model.selection == .tab(try tab("f")))
        try model.setSelection(.more)
        #expect(model.selection == .more)
        #expect(delegate.calls.isEmpty)
    }

    @Test func selectingWhatIsNotThereIsRefused() throws {
        let model = TabBarControllerModel()
        try model.setTabIDs(tabs("a", "b", "c"))

        #expect(throws: TabBarError.unknownTab(try tab("z"))) { try model.setSelection(.tab(tab("z"))) }
        #expect(throws: TabBarError.noMoreItem) { try model.setSelection(.more) }
        #expect(throws: TabBarError.emptySelectionNotAllowed) { try model.setSelection(.none) }
        #expect(throws: TabBarError.unknownTab(try tab("z"))) { try model.userTap(.tab(tab("z"))) }
        #expect(throws: TabBarError.noMoreItem) { try model.userTap(.more) }
        #expect(model.selection == .tab(try tab("a")))
    }

    // MARK: Customizing

    @Test func customizingThatMovesATabReportsChangedInUIKitsOrder() throws {
        let model = try sevenTabModel()
        let delegate = RecordingDelegate()
        model.delegate = delegate
        let log = EventLog(model)
        let before = model.tabIDs

        try model.beginCustomizing()
        try model.moveTab(tab("g"), to: 1)
        try model.endCustomizing()

        let after = try tabs("a", "g", "b", "c", "d", "e", "f")
        #expect(model.tabIDs == after)
        #expect(
            delegate.calls == [
                .willBeginCustomizing(before),
                .willEndCustomizing(after, changed: true),
                .didEndCustomizing(after, changed: true),
            ])
        #expect(log.recorded == [.customizingEnded(changed: true, order: after)])
    }

    @Test func customizingThatEndsWhereItBeganReportsUnchanged() throws {
        let model = try sevenTabModel()
        let delegate = RecordingDelegate()
        model.delegate = delegate
        let log = EventLog(model)
        let order = model.tabIDs

        try model.beginCustomizing()
        try model.moveTab(tab("g"), to: 0)
        try model.moveTab(tab("g"), to: 6)
        try model.endCustomizing()

        #expect(model.tabIDs == order)
        #expect(
            delegate.calls == [
                .willBeginCustomizing(order),
                .willEndCustomizing(order, changed: false),
                .didEndCustomizing(order, changed: false),
            ])
        #expect(log.recorded == [.customizingEnded(changed: false, order: order)])
    }

    @Test func customizingMovesOnlyCustomizableTabsAndLeavesTheOthersInPlace() throws {
        let model = try sevenTabModel()
        try model.setCustomizableTabIDs(tabs("d", "e", "f", "g"))
        try model.beginCustomizing()

        #expect(throws: TabBarError.notCustomizable(try tab("a"))) { try model.moveTab(tab("a"), to: 5) }
        #expect(throws: TabBarError.notCustomizable(try tab("b"))) { try model.moveTab(tab("g"), to: 1) }
        #expect(model.tabIDs == (try tabs("a", "b", "c", "d", "e", "f", "g")))

        try model.moveTab(tab("g"), to: 3)
        #expect(model.tabIDs == (try tabs("a", "b", "c", "g", "d", "e", "f")))
        try model.moveTab(tab("d"), to: 6)
        #expect(model.tabIDs == (try tabs("a", "b", "c", "g", "e", "f", "d")))
    }

    @Test func customizingStepsOutsideASessionAreRefused() throws {
        let model = try sevenTabModel()
        #expect(throws: TabBarError.notCustomizing) { try model.moveTab(tab("g"), to: 0) }
        #expect(throws: TabBarError.notCustomizing) { try model.endCustomizing() }

        try model.beginCustomizing()
        #expect(model.isCustomizing)
        #expect(throws: TabBarError.customizing) { try model.beginCustomizing() }
        #expect(throws: TabBarError.customizing) { try model.setTabIDs(tabs("a")) }
        #expect(throws: TabBarError.customizing) { try model.userTap(.tab(tab("b"))) }
        #expect(throws: TabBarError.indexOutOfRange(7, count: 7)) { try model.moveTab(tab("g"), to: 7) }
        #expect(throws: TabBarError.unknownTab(try tab("z"))) { try model.moveTab(tab("z"), to: 0) }
        try model.endCustomizing()
        #expect(!model.isCustomizing)
    }

    @Test func theSelectedTabKeepsItsIdentityWhenCustomizingMovesItUnderMore() throws {
        let model = try sevenTabModel()
        model.selectedIndex = 1
        try model.beginCustomizing()
        try model.moveTab(tab("b"), to: 6)
        try model.endCustomizing()

        #expect(model.selection == .tab(try tab("b")))
        #expect(model.selectedIndex == 6)
        #expect(model.tabBar.selectedItem == .more)
    }

    // MARK: Badges

    @Test func badgeValuesAreOptionalStringsPerItem() throws {
        let model = try sevenTabModel()
        try model.setBadgeValue("3", for: tab("b"))
        try model.setBadgeValue("new", for: tab("f"))
        #expect(model.badgeValue(for: try tab("b")) == "3")
        #expect(model.badgeValue(for: try tab("f")) == "new")
        #expect(model.badgeValue(for: try tab("a")) == nil)

        try model.setBadgeValue(nil, for: tab("b"))
        #expect(model.badgeValue(for: try tab("b")) == nil)

        #expect(throws: TabBarError.unknownTab(try tab("z"))) { try model.setBadgeValue("1", for: tab("z")) }

        try model.setTabIDs(tabs("a", "b", "c"))  // f's item is gone, and its badge with it
        #expect(model.badgeValue(for: try tab("f")) == nil)
    }

    // MARK: The controller-owned tab bar

    @Test func directEditsOfTheControllerOwnedTabBarAreRefused() throws {
        let model = try sevenTabModel()
        let itemsBefore = model.tabBar.items

        #expect(throws: TabBarError.tabBarManagedByController(operation: "setItems(_:animated:)")) {
            try model.tabBar.setItems([.tab(tab("g"))], animated: false)
        }
        #expect(throws: TabBarError.tabBarManagedByController(operation: "delegate")) {
            try model.tabBar.setDelegate(RecordingDelegate())
        }
        #expect(model.tabBar.items == itemsBefore)
    }

    @Test func errorsNameWhatIsWrong() throws {
        #expect(TabBarError.duplicateTab(try tab("home")).description.contains("\"home\""))
        #expect(TabBarError.indexOutOfRange(9, count: 7).description.contains("9"))
    }

    // MARK: Observation, as a coordinator uses it

    @Test func observersLearnOfEveryAssignmentAndSelectionChangeWithItsSource() throws {
        let model = TabBarControllerModel()
        let log = EventLog(model)

        try model.setTabIDs(tabs("a", "b", "c"))
        try model.setTabIDs(tabs("a", "b", "c"))
        try model.userTap(.tab(tab("b")))
        try model.setSelection(.tab(tab("c")))
        try model.setTabIDs(tabs("a", "b"))

        #expect(
            log.recorded == [
                .tabsAssigned(try tabs("a", "b", "c")),
                .selectionChanged(.tab(try tab("a")), by: .tabsAssigned),
                .tabsAssigned(try tabs("a", "b", "c")),
                .selectionChanged(.tab(try tab("b")), by: .userTap),
                .selectionChanged(.tab(try tab("c")), by: .programmatic),
                .tabsAssigned(try tabs("a", "b")),
                .selectionChanged(.tab(try tab("a")), by: .tabsAssigned),
            ])
    }

    @Test func aCancelledObservationHearsNothingMore() throws {
        let model = TabBarControllerModel()
        let log = EventLog(model)
        try model.setTabIDs(tabs("a"))
        log.cancel()

        try model.setTabIDs(tabs("a", "b"))
        #expect(
            log.recorded == [
                .tabsAssigned(try tabs("a")), .selectionChanged(.tab(try tab("a")), by: .tabsAssigned),
            ])
    }

    @Test func anObserverCanReapplyTheCustomizableSubsetAfterEveryAssignment() throws {
        let host: any TabBarHost = TabBarControllerModel()
        let stored = Set(try tabs("e", "f", "x"))
        let observation = host.observeChanges { [unowned host] event in
            if case .tabsAssigned(let list) = event {
                try? host.setCustomizableTabIDs(list.filter(stored.contains))
            }
        }
        defer { observation.cancel() }

        try host.setTabIDs(tabs("a", "b", "c", "d", "e", "f", "g"))
        #expect(host.customizableTabIDs == (try tabs("e", "f")))
        try host.setTabIDs(tabs("x", "a", "f"))
        #expect(host.customizableTabIDs == (try tabs("x", "f")))
    }
}

// Members, so they shadow the module-wide helpers of DocumentFixturesTests instead of redeclaring them.
extension TabBarModelTests {
    /// Makes tab ids from short names.
    private func tabs(_ names: String...) throws -> [TabID] {
        try names.map { name throws(IdentifierError) in try TabID(name) }
    }

    private func tab(_ name: String) throws -> TabID { try TabID(name) }
}

@Suite("TabBar model customizing order")
@MainActor
struct TabBarCustomizingOrderTests {
    @Test func theCustomizableSubsetStaysInListOrderAfterAMove() throws {
        let model = TabBarControllerModel()
        let ids = try ["a", "b", "c", "d"].map { try TabID($0) }
        try model.setTabIDs(ids)
        try model.setCustomizableTabIDs([ids[1], ids[2], ids[3]])
        try model.beginCustomizing()
        try model.moveTab(ids[3], to: 1)
        try model.endCustomizing()
        #expect(model.tabIDs == [ids[0], ids[3], ids[1], ids[2]])
        #expect(model.customizableTabIDs == [ids[3], ids[1], ids[2]])
    }
}
