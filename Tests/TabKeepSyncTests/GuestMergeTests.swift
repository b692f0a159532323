import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

/// A guest and an account move the same tab; merging the guest in, the later move wins, whichever
/// profile made it, on one device and across two. Each expectation is the order the later user set.
@Suite struct GuestMergeTests {
    let guest = profile("guest")
    let account = profile("account")
    /// b to the end, as one user moved it.
    let bLast = ["a", "c", "d", "e", "f", "g", "b"].map(tab)
    /// b to the front, as the other user moved it.
    let bFirst = ["b", "a", "c", "d", "e", "f", "g"].map(tab)

    /// Lets the wall clock's millisecond move on, so the next edit (on any store of this process)
    /// is stamped after every earlier one.
    func nextMillisecond() { usleep(2_000) }

    @Test func aGuestsLaterMoveOfATabWinsOverTheAccountsOnOneDevice() throws {
        let directory = TemporaryDirectory()
        let phone = try directory.store("phone")
        try phone.edit(account, catalog: letterTabs, .move(tab("b"), to: 6))
        nextMillisecond()
        try phone.edit(guest, catalog: letterTabs, .move(tab("b"), to: 0))
        try phone.mergeProfile(guest, into: account)
        #expect(try phone.layout(account, catalog: letterTabs).order == bFirst)
    }

    @Test func anAccountsLaterMoveOfATabWinsOverTheGuestsOnOneDevice() throws {
        let directory = TemporaryDirectory()
        let phone = try directory.store("phone")
        try phone.edit(guest, catalog: letterTabs, .move(tab("b"), to: 0))
        nextMillisecond()
        try phone.edit(account, catalog: letterTabs, .move(tab("b"), to: 6))
        try phone.mergeProfile(guest, into: account)
        #expect(try phone.layout(account, catalog: letterTabs).order == bLast)
    }

    /// The guest moves b on the phone, then the account moves it on the tablet; the phone merges
    /// the guest before it hears of the tablet's move. Both end with the tablet's (later) move.
    @Test func anAccountsLaterMoveOnAnotherDeviceWinsOverAMergedGuestsMove() throws {
        let directory = TemporaryDirectory()
        let (phone, tablet) = (try directory.store("phone"), try directory.store("tablet"))
        try phone.edit(guest, catalog: letterTabs, .move(tab("b"), to: 0))
        nextMillisecond()
        try tablet.edit(account, catalog: letterTabs, .move(tab("b"), to: 6))
        nextMillisecond()
        try phone.mergeProfile(guest, into: account)
        try sync(phone, tablet)
        for store in [phone, tablet] {
            #expect(try store.layout(account, catalog: letterTabs).order == bLast)
        }
    }

    /// The account moves b on the tablet, the phone syncs it, then the guest moves b on the phone
    /// and is merged in: the guest's move is later, so it wins on both devices.
    @Test func aMergedGuestsLaterMoveWinsOverTheAccountsMoveFromAnotherDevice() throws {
        let directory = TemporaryDirectory()
        let (phone, tablet) = (try directory.store("phone"), try directory.store("tablet"))
        try tablet.edit(account, catalog: letterTabs, .move(tab("b"), to: 6))
        try sync(phone, tablet)
        nextMillisecond()
        try phone.edit(guest, catalog: letterTabs, .move(tab("b"), to: 0))
        try phone.mergeProfile(guest, into: account)
        try sync(phone, tablet)
        for store in [phone, tablet] {
            #expect(try store.layout(account, catalog: letterTabs).order == bFirst)
        }
    }
}
