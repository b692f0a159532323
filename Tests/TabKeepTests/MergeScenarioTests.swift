import TabKeepTestSupport
import Testing

@testable import TabKeep

@Suite("Merge scenarios")
struct MergeScenarioTests {
    @Test func concurrentMovesOfDifferentTabsBothSurvive() throws {
        let catalog = lettersCatalog(7)
        var one = simulatedReplica(1)
        var two = simulatedReplica(2)
        let start = TabBarDocument()
        let moveA = try applying([.move(tab("a"), to: 3)], to: start, catalog: catalog, by: &one)
        let moveG = try applying([.move(tab("g"), to: 0)], to: start, catalog: catalog, by: &two)
        #expect(moveA.layout(catalog: catalog).order == tabs("b", "c", "d", "a", "e", "f", "g"))
        #expect(moveG.layout(catalog: catalog).order == tabs("g", "a", "b", "c", "d", "e", "f"))
        let onOne = moveA.merging(moveG)
        let onTwo = moveG.merging(moveA)
        #expect(onOne.layout(catalog: catalog).order == tabs("g", "b", "c", "d", "a", "e", "f"))
        #expect(onOne.encoded() == onTwo.encoded())
    }

    @Test func aMoveWritesOnlyTheMovedTabAndNoPins() throws {
        let catalog = lettersCatalog(7)
        var one = simulatedReplica(1)
        let moveA = try applying([.move(tab("a"), to: 3)], to: TabBarDocument(), catalog: catalog, by: &one)
        #expect(moveA.entries.map(\.key) == [.position(tab("a"))])
        #expect(!moveA.entries.contains { $0.stamp == .zero })
        guard case .place(let place) = moveA.entries.first?.value else {
            Issue.record("a move writes a place")
            return
        }
        // In the gap after d's slot, before e; the key ends in the writer's replica id.
        #expect(place.after == tab("d"))
        #expect(place.next == tab("e"))
        #expect(place.key.suffix(9) == FractionalKey.suffix(for: one.id)[...])
    }

    @Test func concurrentMovesOfTheSameTabResolveToTheLaterOne() throws {
        let catalog = lettersCatalog(5)
        var one = simulatedReplica(1, counter: 10)
        var two = simulatedReplica(2, counter: 0)
        let early = try applying([.move(tab("c"), to: 0)], to: TabBarDocument(), catalog: catalog, by: &one)
        // Replica 2's clock is ahead: its move is the later one, though replica 1 has the larger id.
        two.clock.observe(Stamp(milliseconds: (1 << 46) + 5, counter: 0))
        let late = try applying([.move(tab("c"), to: 4)], to: TabBarDocument(), catalog: catalog, by: &two)
        for merged in [early.merging(late), late.merging(early)] {
            #expect(merged.layout(catalog: catalog).order == tabs("a", "b", "d", "e", "c"))
        }
        var three = simulatedReplica(3, counter: 0)
        three.clock.observe(Stamp(milliseconds: (1 << 46) + 9, counter: 0))
        let later = try applying([.move(tab("c"), to: 1)], to: TabBarDocument(), catalog: catalog, by: &three)
        #expect(later.merging(late).layout(catalog: catalog).order == tabs("a", "c", "b", "d", "e"))
        #expect(late.merging(later).layout(catalog: catalog).order == tabs("a", "c", "b", "d", "e"))
    }

    @Test func badgeIncrementsOnThreeReplicasAddUp() throws {
        let catalog = lettersCatalog(3)
        let inbox = tab("a")
        var replicas = [simulatedReplica(1), simulatedReplica(2), simulatedReplica(3)]
        var documents: [TabBarDocument] = []
        for (index, amount) in [2, 3, 4].enumerated() {
            documents.append(
                try applying(
                    [.addToBadge(inbox, amount)], to: TabBarDocument(), catalog: catalog, by: &replicas[index]
                ))
        }
        let merged = documents.reduce(TabBarDocument()) { $0.merging($1) }
        #expect(merged.layout(catalog: catalog).badges[inbox] == 9)
    }

    @Test func badgeClearWinsOverIncrementsItSawAndNotOverOnesItDidNot() throws {
        let catalog = lettersCatalog(3)
        let inbox = tab("a")
        var one = simulatedReplica(1)
        var two = simulatedReplica(2)
        let seen = try applying([.addToBadge(inbox, 5)], to: TabBarDocument(), catalog: catalog, by: &one)
        var clearing = seen
        try clearing.apply(.clearBadge(inbox), catalog: catalog, by: &two)
        // Replica 1 keeps counting without having seen the clear.
        let unseen = try applying([.addToBadge(inbox, 2)], to: seen, catalog: catalog, by: &one)
        #expect(clearing.layout(catalog: catalog).badges[inbox] == nil)
        #expect(clearing.merging(unseen).layout(catalog: catalog).badges[inbox] == 2)
        #expect(unseen.merging(clearing).layout(catalog: catalog).badges[inbox] == 2)
        // A set works the same way: 7 plus the 2 it had not seen.
        var setting = seen
        try setting.apply(.setBadge(inbox, 7), catalog: catalog, by: &two)
        #expect(setting.merging(unseen).layout(catalog: catalog).badges[inbox] == 9)
    }

    @Test func badgeCountNeverGoesBelowZero() throws {
        let catalog = lettersCatalog(3)
        let inbox = tab("a")
        var one = simulatedReplica(1)
        var two = simulatedReplica(2)
        var document = try applying([.setBadge(inbox, 5)], to: TabBarDocument(), catalog: catalog, by: &one)
        try document.apply(.addToBadge(inbox, -10), catalog: catalog, by: &one)
        #expect(document.layout(catalog: catalog).badges[inbox] == nil)
        #expect(
            document.entries.contains {
                $0.key == .badgeIncrements(inbox, one.id) && $0.value == .badgeTotal(-5)
            })
        try document.apply(.addToBadge(inbox, 1), catalog: catalog, by: &one)
        #expect(document.layout(catalog: catalog).badges[inbox] == 1)
        // Concurrent decrements that each took the whole count: still zero, not negative.
        let base = try applying([.setBadge(inbox, 3)], to: TabBarDocument(), catalog: catalog, by: &one)
        let left = try applying([.addToBadge(inbox, -3)], to: base, catalog: catalog, by: &one)
        let right = try applying([.addToBadge(inbox, -3)], to: base, catalog: catalog, by: &two)
        let merged = left.merging(right)
        #expect(merged.layout(catalog: catalog).badges[inbox] == nil)
        var next = merged
        try next.apply(.addToBadge(inbox, 1), catalog: catalog, by: &two)
        #expect(next.layout(catalog: catalog).badges[inbox] == 1)
    }

    @Test func resetRemovesWhatItSawAndKeepsEditsItHadNot() throws {
        let catalog = lettersCatalog(4)
        var one = simulatedReplica(1)
        var two = simulatedReplica(2)
        let shared = try applying(
            [.move(tab("d"), to: 0), .setHidden(tab("b"), true), .setBadgeText(tab("a"), "new")],
            to: TabBarDocument(), catalog: catalog, by: &one)
        var reset = shared
        try reset.apply(.reset, catalog: catalog, by: &two)
        #expect(reset.layout(catalog: catalog) == TabBarDocument().layout(catalog: catalog))
        // Replica 1, offline, keeps editing other things.
        let offline = try applying(
            [.setHidden(tab("c"), true), .select(.tab(tab("a")))], to: shared, catalog: catalog, by: &one)
        for merged in [reset.merging(offline), offline.merging(reset)] {
            let layout = merged.layout(catalog: catalog)
            #expect(layout.order == tabs("a", "b", "d"))
            #expect(layout.hidden == tabs("c"))
            #expect(layout.selection == .tab(tab("a")))
            #expect(layout.badgeTexts.isEmpty)
        }
    }

    @Test func eraseOfAProfileIsTheSameClearAndLaterEditsStillApply() throws {
        let catalog = lettersCatalog(3)
        var one = simulatedReplica(1)
        var two = simulatedReplica(2)
        let before = try applying(
            [.addToBadge(tab("a"), 4)], to: TabBarDocument(), catalog: catalog, by: &one)
        let erased = try applying([.reset], to: before, catalog: catalog, by: &two)
        #expect(erased.merging(before).layout(catalog: catalog).badges.isEmpty)
        let after = try applying(
            [.addToBadge(tab("a"), 1)], to: erased.merging(before), catalog: catalog, by: &one)
        #expect(after.merging(before).layout(catalog: catalog).badges[tab("a")] == 1)
        // A clear on top of a clear keeps the contexts of both.
        let again = try applying([.reset], to: after, catalog: catalog, by: &two)
        #expect(again.merging(after).merging(before).layout(catalog: catalog).badges.isEmpty)
    }

    @Test func deltaAfterAVectorHoldsOnlyWhatThePeerLacks() throws {
        let catalog = lettersCatalog(3)
        var one = simulatedReplica(1)
        let first = try applying(
            [.setHidden(tab("a"), true)], to: TabBarDocument(), catalog: catalog, by: &one)
        let second = try applying([.setHidden(tab("b"), true)], to: first, catalog: catalog, by: &one)
        var vector = VersionVector()
        for dot in first.dots { vector[dot.replica] = max(vector[dot.replica], dot.sequence) }
        let delta = second.delta(after: vector)
        #expect(delta.entries.map(\.key) == [.hidden(tab("b"))])
        #expect(first.merging(delta) == second)
    }

    @Test func foldingAGuestProfileGivesItsEntriesLocalDots() throws {
        let catalog = lettersCatalog(3)
        var guestReplica = simulatedReplica(7)
        var account = simulatedReplica(1, counter: 100)
        let guest = try applying(
            [.move(tab("c"), to: 0)], to: TabBarDocument(), catalog: catalog, by: &guestReplica)
        var document = TabBarDocument()
        document.fold(guest, by: &account)
        #expect(document.layout(catalog: catalog).order == tabs("c", "a", "b"))
        #expect(document.dots.allSatisfy { $0.replica == account.id })
    }
}
