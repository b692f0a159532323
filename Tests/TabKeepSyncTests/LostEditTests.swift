import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

/// The four ways an edit was lost while every replica still agreed, each as a user would hit it
/// through the public API. Each expectation is what the users did, never only replica against replica.
@Suite struct LostEditTests {
    let user = profile("user")
    let inbox = tab("c")

    @Test func aResetNeverBringsBackTheIncrementsItHadSeen() throws {
        let directory = TemporaryDirectory()
        let (tablet, phone) = (try directory.store("tablet"), try directory.store("phone"))
        try tablet.edit(user, catalog: letterTabs, .addToBadge(inbox, 5))
        try sync(tablet, phone)
        try phone.reset(user)
        try tablet.edit(user, catalog: letterTabs, .addToBadge(inbox, 1))  // has not seen the reset
        try sync(tablet, phone)
        for store in [tablet, phone] {
            #expect(try store.layout(user, catalog: letterTabs).badges[inbox] == 1)
        }
        // And from then on both count on from 1.
        try phone.edit(user, catalog: letterTabs, .addToBadge(inbox, 2))
        try tablet.edit(user, catalog: letterTabs, .addToBadge(inbox, 3))
        try sync(tablet, phone)
        for store in [tablet, phone] {
            #expect(try store.layout(user, catalog: letterTabs).badges[inbox] == 6)
        }
    }

    @Test func anEraseNeverBringsBackTheIncrementsItHadSeen() throws {
        let directory = TemporaryDirectory()
        let (tablet, phone) = (try directory.store("tablet"), try directory.store("phone"))
        try tablet.edit(user, catalog: letterTabs, .addToBadge(inbox, 5))
        try sync(tablet, phone)
        _ = try phone.erase(user)
        try tablet.edit(user, catalog: letterTabs, .addToBadge(inbox, 1))
        try sync(tablet, phone)
        for store in [tablet, phone] {
            #expect(try store.layout(user, catalog: letterTabs).badges[inbox] == 1)
        }
    }

    @Test func movesIntoOneGapNeverRespaceTheBarOverAConcurrentMove() throws {
        let directory = TemporaryDirectory()
        let (a, b) = (try directory.store("a"), try directory.store("b"))
        try a.edit(user, catalog: letterTabs, .move(tab("a"), to: 1))
        try sync(a, b)
        try a.edit(user, catalog: letterTabs, .move(tab("f"), to: 2))
        try b.edit(user, catalog: letterTabs, .move(tab("e"), to: 2))  // the same gap, concurrently
        try sync(a, b)
        // B moves d while A moves g: different tabs, so both moves must survive.
        var expected = try b.layout(user, catalog: letterTabs).order
        expected.removeAll { $0 == tab("d") }
        expected.insert(tab("d"), at: 3)
        try b.edit(user, catalog: letterTabs, .move(tab("d"), to: 3))
        try a.edit(user, catalog: letterTabs, .move(tab("g"), to: 0))
        expected.removeAll { $0 == tab("g") }
        expected.insert(tab("g"), at: 0)
        try sync(a, b)
        for store in [a, b] {
            #expect(try store.layout(user, catalog: letterTabs).order == expected)
        }
        // Both concurrent moves into one gap stand where their devices put them: after a, before c.
        let order = expected
        for moved in [tab("e"), tab("f")] {
            let index = order.firstIndex(of: moved)!
            #expect(index > order.firstIndex(of: tab("a"))! && index < order.firstIndex(of: tab("c"))!)
        }
    }

    /// One device's keys are unique within each profile, not across profiles: a guest's move and the
    /// account's move into one gap, made on one device, carry the same key. A guest merge must not
    /// bring the two together, or the next move between them finds no key and re-spaces the bar,
    /// over a concurrent move of another tab.
    @Test func aGuestMergeNeverMakesTheNextMoveRespaceTheBar() throws {
        let directory = TemporaryDirectory()
        let (phone, tablet) = (try directory.store("phone"), try directory.store("tablet"))
        let guest = profile("guest")
        try phone.edit(user, catalog: letterTabs, .move(tab("d"), to: 0))
        try phone.edit(guest, catalog: letterTabs, .move(tab("e"), to: 0))  // the same gap, same device
        try phone.mergeProfile(guest, into: user)
        #expect(
            try phone.layout(user, catalog: letterTabs).order == ["d", "e", "a", "b", "c", "f", "g"].map(tab))
        try sync(phone, tablet)
        try tablet.edit(user, catalog: letterTabs, .move(tab("g"), to: 0))  // not seen by the phone yet
        let old = try positionEntries(phone, user)
        try phone.edit(user, catalog: letterTabs, .move(tab("b"), to: 1))  // between d and e
        let written = try positionEntries(phone, user).filter { old[$0.key] != $0.value }.keys
        #expect(Set(written) == [tab("b")])
        try sync(phone, tablet)
        for store in [phone, tablet] {
            #expect(
                try store.layout(user, catalog: letterTabs).order
                    == ["g", "d", "b", "e", "a", "c", "f"].map(tab))
        }
    }

    /// Bob's bar is merged into Alice's (Bob is cleared), then Alice's back into Bob's on another
    /// device: each copy meets, in Bob's document, the tombstone of the very write it copies. The
    /// copy is a write Bob's clear never saw, so Alice's settings must come back to Bob — on every
    /// pair of devices, whichever replica id happens to be the larger (a tie of the two stamps fell
    /// to the origins, random per store, and the copy lost whenever the clearing device's id was the
    /// larger; this test gives that device the larger id).
    @Test func aProfileMergedBackKeepsWhatItsClearHadNotSeenWhateverTheReplicaIds() throws {
        let directory = TemporaryDirectory()
        let (one, two) = (try directory.store("one"), try directory.store("two"))
        let (phone, tablet) = one.replicaID > two.replicaID ? (one, two) : (two, one)
        let (alice, bob) = (profile("alice"), profile("bob"))
        try phone.edit(bob, catalog: letterTabs, .setCustomizableFlag(tab("d"), false))
        try phone.mergeProfile(bob, into: alice)
        #expect(try !phone.layout(alice, catalog: letterTabs).customizable.contains(tab("d")))
        try sync(phone, tablet)
        try tablet.mergeProfile(alice, into: bob)
        try sync(phone, tablet)
        for store in [phone, tablet] {
            let layout = try store.layout(bob, catalog: letterTabs)
            #expect(!layout.customizable.contains(tab("d")), "\(layout.customizable)")
            #expect(layout.customizable.contains(tab("e")))
        }
    }

    /// Two first keys of two empty gaps, written by one device, meet in one gap on an app version
    /// that lacks the tab between those gaps. A move between their tabs there must find room between
    /// the keys, not re-space the bar over another device's concurrent move.
    @Test func tabsThatMeetInOneGapOnAnOlderAppLeaveRoomForAMoveBetweenThem() throws {
        let directory = TemporaryDirectory()
        let (phone, tablet) = (try directory.store("phone"), try directory.store("tablet"))
        let older = try Catalog(["a", "b", "c", "e", "f", "g"].map(tab))  // an older app without d
        try phone.edit(user, catalog: letterTabs, .move(tab("g"), to: 4))  // into the gap after d
        try phone.edit(user, catalog: letterTabs, .move(tab("f"), to: 3))  // into the gap after c
        try sync(phone, tablet)
        // Without d, both gaps are one: f and g meet there, in the order of their keys.
        let met = try tablet.layout(user, catalog: older).order
        #expect(met.count == 6 && Set(met[3...4]) == [tab("f"), tab("g")], "\(met)")
        let (first, second) = (met[3], met[4])
        try phone.edit(user, catalog: letterTabs, .move(tab("a"), to: 6))  // not seen by the tablet yet
        let old = try positionEntries(tablet, user)
        try tablet.edit(user, catalog: older, .move(tab("b"), to: 3))  // between the two
        let written = try positionEntries(tablet, user).filter { old[$0.key] != $0.value }.keys
        #expect(Set(written) == [tab("b")], "a move between them wrote \(written.map(\.rawValue).sorted())")
        let moved = try tablet.layout(user, catalog: older).order
        #expect(moved == [tab("a"), tab("c"), first, tab("b"), second, tab("e")], "\(moved)")
        try sync(phone, tablet)
        for (store, catalog) in [(phone, letterTabs), (tablet, older)] {
            let order = try store.layout(user, catalog: catalog).order
            // The phone's concurrent move of a survives, and b stays right after the tab it was put after.
            #expect(order.last == tab("a"), "\(order)")
            #expect(order.firstIndex(of: tab("b")) == order.firstIndex(of: first).map { $0 + 1 }, "\(order)")
        }
    }

    @Test func devicesOnDifferentAppVersionsKeepEachOthersMoves() throws {
        let directory = TemporaryDirectory()
        let (phone, tablet) = (try directory.store("phone"), try directory.store("tablet"))
        let names = (0...6).map { "m\($0)" }
        func catalog(_ names: [String]) throws -> Catalog {
            try Catalog(
                tabs: names.map { Catalog.Tab(tab($0), placement: $0 == "m0" ? .fixed : .default) })
        }
        let phoneCatalog = try catalog(names)
        let tabletCatalog = try catalog(names.filter { $0 != "m3" })  // an older app without m3
        try phone.edit(user, catalog: phoneCatalog, .move(tab("m2"), to: 3))
        try tablet.edit(user, catalog: tabletCatalog, .move(tab("m1"), to: 3))
        #expect(
            try phone.layout(user, catalog: phoneCatalog).order.map(\.rawValue) == [
                "m0", "m1", "m3", "m2", "m4", "m5", "m6",
            ])
        #expect(
            try tablet.layout(user, catalog: tabletCatalog).order.map(\.rawValue) == [
                "m0", "m2", "m4", "m1", "m5", "m6",
            ])
        try sync(phone, tablet)
        // m2 right after m3, as the phone put it; m1 right after m4, as the tablet put it.
        let expectedPhone = ["m0", "m3", "m2", "m4", "m1", "m5", "m6"]
        #expect(try phone.layout(user, catalog: phoneCatalog).order.map(\.rawValue) == expectedPhone)
        #expect(try tablet.layout(user, catalog: phoneCatalog).order.map(\.rawValue) == expectedPhone)
        let expectedTablet = ["m0", "m2", "m4", "m1", "m5", "m6"]
        #expect(try phone.layout(user, catalog: tabletCatalog).order.map(\.rawValue) == expectedTablet)
        #expect(try tablet.layout(user, catalog: tabletCatalog).order.map(\.rawValue) == expectedTablet)
    }
}
