import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

@Suite struct MessageFormatTests {
    @Test func crc32MatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        var incremental = CRC32()
        Array("12345".utf8).withUnsafeBytes { incremental.update($0) }
        Array("6789".utf8).withUnsafeBytes { incremental.update($0) }
        #expect(incremental.value == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }

    @Test func aMessageDecodesToWhatWasEncoded() throws {
        let directory = TemporaryDirectory()
        let store = try directory.store("a")
        try store.edit(
            profile("alice"), catalog: letterTabs, [.move(tab("c"), to: 0), .setBadge(tab("a"), 3)])
        try store.edit(profile("bob"), catalog: letterTabs, .select(.more))
        let message = try SyncSession(store: store).deltaMessage(kind: .reply, after: [:], scope: .all)
        #expect(message.documents.count == 2)
        #expect(message.sections.map(\.profile) == [profile("alice"), profile("bob")])
        #expect(try SyncMessage(decoding: message.encoded()) == message)
        #expect(Array(message.encoded().prefix(5)) == Array("TKSY".utf8) + [3])
        #expect(message.sections.allSatisfy { $0.digest != nil }, "format 3 carries each profile's digest")
    }

    @Test func aFormatTwoMessageIsStillReadWithoutDigests() throws {
        let directory = TemporaryDirectory()
        let (a, b) = (try directory.store("a"), try directory.store("b"))
        try a.edit(profile("alice"), catalog: letterTabs, [.move(tab("c"), to: 0), .setBadge(tab("a"), 3)])
        let message = try SyncSession(store: a).deltaMessage(kind: .reply, after: [:], scope: .all)
        let old = message.encoded(format: 2)
        #expect(old[4] == 2)
        #expect(old.count == message.encoded().count - 5, "format 3 adds exactly its 5 digest bytes")
        let decoded = try SyncMessage(decoding: old)
        #expect(decoded.sections.map(\.digest) == [nil])
        var withoutDigests = message
        withoutDigests.sections = message.sections.map {
            var section = $0
            section.digest = nil
            return section
        }
        #expect(decoded == withoutDigests)
        try SyncSession(store: b).receive(decoded)
        #expect(try documentBytes(b) == documentBytes(a))
    }

    @Test func aDigestOfAnotherLengthIsRefused() throws {
        let directory = TemporaryDirectory()
        let store = try directory.store("a")
        try store.edit(profile("alice"), catalog: letterTabs, .setBadge(tab("a"), 3))
        var message = try SyncSession(store: store).deltaMessage(kind: .reply, after: [:], scope: .all)
        message.sections[0].digest = nil
        var bytes = Array(message.encoded().dropLast(4))
        // The digest length is the byte after "alice"'s two vectors; make it 2 with two bytes.
        let lengthAt =
            bytes.count
            - message.sections[0].documents.reduce(1) { total, document in
                total + 1 + document.key.bar.rawValue.utf8.count
                    + varintSize(document.document.encoded().count)
                    + document.document.encoded().count
            } - 1
        #expect(bytes[lengthAt] == 0)
        bytes.replaceSubrange(lengthAt...lengthAt, with: [2, 0xab, 0xcd])
        var crc = CRC32()
        crc.update(bytes)
        let sealed = bytes + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc.value >> $0) }
        #expect {
            try SyncMessage(decoding: sealed)
        } throws: { error in
            "\(error)".contains("digest of \"alice\" is 2 bytes, not 0 or 4")
        }
    }

    @Test func syncingTwoStoresInProcessLeavesBothWithTheSameDocuments() throws {
        let directory = TemporaryDirectory()
        let a = try directory.store("a")
        let b = try directory.store("b")
        try a.edit(profile("alice"), catalog: letterTabs, .move(tab("g"), to: 0))
        try b.edit(profile("bob"), catalog: letterTabs, .setHidden(tab("b"), true))
        let report = try sync(a, b)
        #expect(report.changedInFirst == [DocumentKey(profile: profile("bob"), bar: .main)])
        #expect(report.changedInSecond == [DocumentKey(profile: profile("alice"), bar: .main)])
        #expect(try documentBytes(a) == documentBytes(b))
        #expect(try a.versionVector() == b.versionVector())
        let again = try sync(a, b)
        #expect(again.documentsToFirst == 0 && again.documentsToSecond == 0)
    }

    @Test func aFoldedGuestProfileReachesTheOtherDeviceThroughTheSameMerge() throws {
        let directory = TemporaryDirectory()
        let phone = try directory.store("phone")
        let tablet = try directory.store("tablet")
        try phone.edit(
            profile("guest"), catalog: letterTabs, [.move(tab("e"), to: 0), .addToBadge(tab("a"), 2)])
        try tablet.edit(profile("account"), catalog: letterTabs, [.addToBadge(tab("a"), 5)])
        try sync(phone, tablet)
        try phone.mergeProfile(profile("guest"), into: profile("account"))
        try sync(phone, tablet)
        for store in [phone, tablet] {
            let layout = try store.layout(profile("account"), catalog: letterTabs)
            #expect(layout.order.first == tab("e"))
            #expect(layout.badges[tab("a")] == 7)
            #expect(try store.profiles() == [profile("account")])
        }
        #expect(try documentBytes(phone) == documentBytes(tablet))
    }

    @Test func aRequestIsNotAppliedAndARepliedRequestChangesNothingOnTheResponder() throws {
        let directory = TemporaryDirectory()
        let a = try directory.store("a")
        let b = try directory.store("b")
        try a.edit(profile("alice"), catalog: letterTabs, .move(tab("g"), to: 0))
        let before = try recordChecksum(b)
        _ = try SyncSession(store: b).respond(to: SyncSession(store: a).request())
        #expect(try recordChecksum(b) == before)
        #expect(throws: SyncError.self) { try SyncSession(store: b).receive(SyncSession(store: a).request()) }
    }
}

/// The bytes of `value` as a LEB128 varint.
func varintSize(_ value: Int) -> Int {
    var count = 1
    var rest = value >> 7
    while rest > 0 {
        count += 1
        rest >>= 7
    }
    return count
}
