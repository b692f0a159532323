import TabKeep
import TabKeepTestSupport
import Testing

@Suite("Moves after a reset")
struct MoveAfterResetTests {
    @Test(arguments: 0..<7)
    func aMoveAfterAResetLandsWhereItWasAsked(index: Int) throws {
        var replica = Replica(id: ReplicaID(rawValue: 7))
        var document = TabBarDocument()
        try document.apply(.move(tab("e"), to: 0), catalog: letterTabs, by: &replica)
        try document.apply(.move(tab("b"), to: 5), catalog: letterTabs, by: &replica)
        try document.apply(.reset, catalog: letterTabs, by: &replica)
        #expect(document.layout(catalog: letterTabs).order == letterTabs.tabs.map(\.id))
        try document.apply(.move(tab("f"), to: index), catalog: letterTabs, by: &replica)
        var expected = ["a", "b", "c", "d", "e", "g"].map(tab)
        expected.insert(tab("f"), at: index)
        #expect(document.layout(catalog: letterTabs).order == expected)
    }

    @Test(arguments: 0..<7)
    func aMoveOnAFreshBarLandsWhereItWasAsked(index: Int) throws {
        var replica = Replica(id: ReplicaID(rawValue: 7))
        var document = TabBarDocument()
        try document.apply(.move(tab("f"), to: index), catalog: letterTabs, by: &replica)
        var expected = ["a", "b", "c", "d", "e", "g"].map(tab)
        expected.insert(tab("f"), at: index)
        #expect(document.layout(catalog: letterTabs).order == expected)
    }
}

@Suite("Moves a concurrent reset had not seen")
struct UnseenMoveTests {
    @Test(arguments: 0..<6)
    func aResetKeepsAMoveToAnyIndexItHadNotSeen(index: Int) throws {
        var phone = Replica(id: ReplicaID(rawValue: 1))
        var tablet = Replica(id: ReplicaID(rawValue: 2))
        var onPhone = TabBarDocument()
        try onPhone.apply(.setHidden(tab("b"), true), catalog: letterTabs, by: &phone)
        var onTablet = onPhone
        try onTablet.apply(.move(tab("f"), to: index), catalog: letterTabs, by: &tablet)
        let moved = onTablet.layout(catalog: letterTabs).order
        try onPhone.apply(.reset, catalog: letterTabs, by: &phone)
        let merged = onPhone.merging(onTablet)
        #expect(merged.encoded() == onTablet.merging(onPhone).encoded())
        #expect(merged.layout(catalog: letterTabs).order.filter { $0 != tab("b") } == moved)
    }
}
