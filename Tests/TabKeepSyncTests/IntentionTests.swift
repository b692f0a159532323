import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

@Suite struct IntentionTests {
    @Test func concurrentMovesOfDifferentTabsBothSurvive() throws {
        let directory = TemporaryDirectory()
        let phone = try directory.store("phone")
        let tablet = try directory.store("tablet")
        let user = profile("user")
        try phone.edit(user, catalog: letterTabs, .move(tab("a"), to: 3))  // b c d a e f g
        try tablet.edit(user, catalog: letterTabs, .move(tab("g"), to: 0))  // g a b c d e f
        try sync(phone, tablet)
        let expected = ["g", "b", "c", "d", "a", "e", "f"].map(tab)
        #expect(try phone.layout(user, catalog: letterTabs).order == expected)
        #expect(try tablet.layout(user, catalog: letterTabs).order == expected)
    }

    @Test func badgeIncrementsFromThreeDevicesAddUp() throws {
        let directory = TemporaryDirectory()
        let stores = try ["phone", "tablet", "watch"].map { try directory.store($0) }
        let user = profile("user")
        try stores[0].edit(user, catalog: letterTabs, .setBadge(tab("c"), 1))
        try sync(stores[0], stores[1])
        try sync(stores[0], stores[2])
        for (store, amount) in zip(stores, [2, 3, 4]) {
            try store.edit(user, catalog: letterTabs, .addToBadge(tab("c"), amount))
        }
        try sync(stores[0], stores[1])
        try sync(stores[1], stores[2])
        try sync(stores[0], stores[1])
        for store in stores { #expect(try store.layout(user, catalog: letterTabs).badges[tab("c")] == 10) }
    }

    @Test func aClearWinsOnlyOverTheIncrementsItHadSeen() throws {
        let directory = TemporaryDirectory()
        let phone = try directory.store("phone")
        let tablet = try directory.store("tablet")
        let user = profile("user")
        try phone.edit(user, catalog: letterTabs, .addToBadge(tab("b"), 3))
        try sync(phone, tablet)
        try tablet.edit(user, catalog: letterTabs, .addToBadge(tab("b"), 2))  // the phone has not seen this
        try phone.edit(user, catalog: letterTabs, .clearBadge(tab("b")))  // clears the 3 it saw
        try sync(phone, tablet)
        #expect(try phone.layout(user, catalog: letterTabs).badges[tab("b")] == 2)
        #expect(try tablet.layout(user, catalog: letterTabs).badges[tab("b")] == 2)
    }

    @Test func aResetKeepsTheMovesItHadNotSeen() throws {
        let directory = TemporaryDirectory()
        let phone = try directory.store("phone")
        let tablet = try directory.store("tablet")
        let user = profile("user")
        try phone.edit(user, catalog: letterTabs, .setHidden(tab("b"), true))
        try sync(phone, tablet)
        try tablet.edit(user, catalog: letterTabs, .move(tab("f"), to: 0))
        let moved = try tablet.layout(user, catalog: letterTabs).order
        try phone.reset(user)
        try sync(phone, tablet)
        for store in [phone, tablet] {
            let layout = try store.layout(user, catalog: letterTabs)
            #expect(layout.order.filter { $0 != tab("b") } == moved)  // the unseen move survives
            #expect(layout.hidden.isEmpty)  // the hide the reset had seen is gone
        }
    }
}
