import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

/// A scoped exchange never sends, writes or reveals another profile.
@Suite struct ScopedSyncTests {
    @Test func noMessageOfAScopedExchangeHoldsAByteOfAnotherProfile() throws {
        let directory = TemporaryDirectory()
        let (phone, tablet) = (try directory.store("phone"), try directory.store("tablet"))
        let alice = profile("alice")
        try phone.edit(alice, catalog: letterTabs, .move(tab("e"), to: 0))
        try phone.edit(
            profile("bobby-secret"), catalog: letterTabs, [.setBadgeText(tab("c"), "bobtext"), .reset])
        try tablet.edit(alice, catalog: letterTabs, .addToBadge(tab("a"), 2))
        try tablet.edit(profile("carol-secret"), catalog: letterTabs, .setBadgeText(tab("b"), "caroltext"))
        let a = SyncSession(store: phone, scope: .only([alice]))
        let b = SyncSession(store: tablet, scope: .only([alice]))
        // Even a peer that asks for everything gets only the scope it is allowed.
        let greedy = try SyncSession(store: tablet).request().encoded()
        let request = try a.request().encoded()
        let reply = try b.respond(to: SyncMessage(decoding: request)).encoded()
        let final = try #require(try a.receive(SyncMessage(decoding: reply)).reply).encoded()
        try b.receive(SyncMessage(decoding: final))
        let answerToGreedy = try a.respond(to: SyncMessage(decoding: greedy)).encoded()
        for bytes in [request, reply, final, answerToGreedy] {
            for secret in ["bobby-secret", "carol-secret", "bobtext", "caroltext"] {
                #expect(Data(bytes).range(of: Data(secret.utf8)) == nil, "a message holds \(secret)")
            }
            #expect(try SyncMessage(decoding: bytes).sections.allSatisfy { $0.profile == alice })
        }
        for store in [phone, tablet] {
            #expect(try store.layout(alice, catalog: letterTabs).badges == [tab("a"): 2])
            #expect(try store.layout(alice, catalog: letterTabs).order.first == tab("e"))
        }
        #expect(try phone.profiles() == [alice])
        #expect(try !tablet.profiles().contains(profile("bobby-secret")))
    }
}
