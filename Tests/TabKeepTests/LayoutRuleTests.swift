import TabKeepTestSupport
import Testing

@testable import TabKeep

@Suite("Layout rules")
struct LayoutRuleTests {
    @Test func aCatalogDescribesItselfByItsTabsAndRenames() throws {
        let catalog = try Catalog(tabs: [Catalog.Tab(tab("home"))], renames: [tab("chat"): tab("home")])
        let text = String(describing: catalog)
        #expect(text.hasPrefix("Catalog(tabs: "), "\(text)")
        #expect(text.contains("home") && text.contains("chat"), "\(text)")
        #expect(!text.contains("Storage"), "\(text)")
    }

    @Test func aNewTabStandsInItsCatalogSlotAndAMovedTabKeepsItsPlace() throws {
        var replica = simulatedReplica(1)
        let version1 = try Catalog(tabs("a", "b", "c"))
        let document = try applying(
            [.move(tab("c"), to: 0), .move(tab("a"), to: 2)], to: TabBarDocument(), catalog: version1,
            by: &replica)
        #expect(document.layout(catalog: version1).order == tabs("c", "b", "a"))
        // Version 2 adds y before everything and x after b: c, moved to the front, stays first; a,
        // moved after b's slot, stays right after b; new tabs stand in their own slots.
        let version2 = try Catalog(tabs("y", "a", "b", "x", "c"))
        #expect(document.layout(catalog: version2).order == tabs("c", "y", "b", "a", "x"))
        // Version 3 drops b: a was placed in b's gap, so it falls back to standing just before the tab
        // that followed it (none: the end); z, new, stands in its slot.
        let version3 = try Catalog(tabs("a", "c", "z"))
        #expect(document.layout(catalog: version3).order == tabs("c", "z", "a"))
    }

    @Test func aTabGoneFromTheCatalogIsNotShownButReturnsToItsPlace() throws {
        var replica = simulatedReplica(1)
        let full = try Catalog(tabs("a", "b", "c", "d"))
        let document = try applying(
            [.reorder(tabs("d", "b", "a", "c")), .setHidden(tab("c"), true)], to: TabBarDocument(),
            catalog: full,
            by: &replica)
        let without = try Catalog(tabs("a", "c", "d"))
        #expect(document.layout(catalog: without).order == tabs("d", "a"))
        #expect(document.layout(catalog: without).hidden == tabs("c"))
        #expect(document.entries.contains { $0.key == .position(tab("b")) })
        #expect(document.layout(catalog: full).order == tabs("d", "b", "a"))
    }

    @Test func renamesReadThroughAndTheNewerEntryWins() throws {
        var replica = simulatedReplica(1)
        let before = try Catalog(tabs("home", "chat", "files"))
        var document = try applying(
            [.move(tab("chat"), to: 2), .setHidden(tab("files"), true), .setBadge(tab("chat"), 3)],
            to: TabBarDocument(), catalog: before, by: &replica)
        try document.apply(.select(.tab(tab("chat"))), catalog: before, by: &replica)
        let after = try Catalog(
            tabs: [Catalog.Tab(tab("home")), Catalog.Tab(tab("messages")), Catalog.Tab(tab("files"))],
            renames: [tab("chat"): tab("messages")])
        var layout = document.layout(catalog: after)
        #expect(layout.order == tabs("home", "messages"))
        #expect(layout.badges == [tab("messages"): 3])
        #expect(layout.selection == .tab(tab("messages")))
        // Both ids written: the newer entry wins.
        try document.apply(.move(tab("messages"), to: 0), catalog: after, by: &replica)
        layout = document.layout(catalog: after)
        #expect(layout.order == tabs("messages", "home"))
        var older = replica
        older.clock = HybridLogicalClock()
        var stale = TabBarDocument()
        try stale.apply(.move(tab("chat"), to: 2), catalog: before, by: &older)
        #expect(document.merging(stale).layout(catalog: after).order == tabs("messages", "home"))
        #expect(stale.merging(document).layout(catalog: after).order == tabs("messages", "home"))
        try document.apply(.setHidden(tab("chat"), true), catalog: before, by: &replica)
        #expect(document.layout(catalog: after).order == tabs("home"))
        #expect(document.layout(catalog: after).hidden == tabs("messages", "files"))
    }

    @Test func hiddenAndOptionalDefaultsApplyUntilTheUserChangesThem() throws {
        var replica = simulatedReplica(1)
        let catalog = try Catalog(tabs: [
            Catalog.Tab(tab("a")),
            Catalog.Tab(tab("b"), hidden: true),
            Catalog.Tab(tab("c"), placement: .optional),
            Catalog.Tab(tab("d"), customizable: false),
        ])
        let plain = TabBarDocument().layout(catalog: catalog)
        #expect(plain.order == tabs("a", "d"))
        #expect(plain.hidden == tabs("b", "c"))
        #expect(plain.customizable == tabs("a"))
        let edited = try applying(
            [.setHidden(tab("c"), false), .setHidden(tab("a"), true), .setCustomizableFlag(tab("d"), true)],
            to: TabBarDocument(), catalog: catalog, by: &replica)
        let layout = edited.layout(catalog: catalog)
        #expect(layout.order == tabs("c", "d"))
        #expect(layout.hidden == tabs("a", "b"))
        #expect(layout.customizable == tabs("c", "d"))
    }

    @Test func fixedTabsStayAtTheirCatalogIndexAndCannotBeChanged() throws {
        var replica = simulatedReplica(1)
        let catalog = try Catalog(tabs: [
            Catalog.Tab(tab("home"), placement: .fixed),
            Catalog.Tab(tab("a")),
            Catalog.Tab(tab("b")),
            Catalog.Tab(tab("settings"), placement: .fixed),
            Catalog.Tab(tab("c"), placement: .movable),
        ])
        var document = try applying(
            [.move(tab("c"), to: 1), .move(tab("a"), to: 4)], to: TabBarDocument(), catalog: catalog,
            by: &replica)
        let layout = document.layout(catalog: catalog)
        #expect(layout.order == tabs("home", "c", "b", "settings", "a"))
        #expect(!layout.customizable.contains(tab("home")))
        #expect(!layout.customizable.contains(tab("settings")))
        let before = document
        for edit: TabBarEdit in [
            .move(tab("home"), to: 2), .setHidden(tab("settings"), true),
            .setCustomizableFlag(tab("home"), true),
            .reorder(tabs("c", "home", "b", "settings", "a")), .setHidden(tab("c"), true),
        ] {
            #expect(throws: EditError.self) { try document.apply(edit, catalog: catalog, by: &replica) }
        }
        #expect(document == before)
    }

    @Test func moreSplitsAtMaxVisibleFiveIntoFirstFourPlusMore() {
        let catalog = lettersCatalog(7)
        let layout = TabBarDocument().layout(catalog: catalog)
        let split = layout.split(maxVisible: 5)
        #expect(split.visible == tabs("a", "b", "c", "d"))
        #expect(split.more == tabs("e", "f", "g"))
        let exact = TabBarDocument().layout(catalog: lettersCatalog(5)).split(maxVisible: 5)
        #expect(exact.visible == tabs("a", "b", "c", "d", "e"))
        #expect(exact.more.isEmpty)
    }

    @Test func selectionShowsOnlyWhenItsTabIsShown() throws {
        var replica = simulatedReplica(1)
        let catalog = lettersCatalog(3)
        var document = try applying(
            [.select(.tab(tab("b")))], to: TabBarDocument(), catalog: catalog, by: &replica)
        #expect(document.layout(catalog: catalog).selection == .tab(tab("b")))
        try document.apply(.setHidden(tab("b"), true), catalog: catalog, by: &replica)
        #expect(document.layout(catalog: catalog).selection == Selection.none)
        try document.apply(.select(.more), catalog: catalog, by: &replica)
        #expect(document.layout(catalog: catalog).selection == .more)
    }
}
