import TabKeepTestSupport
import Testing

@testable import TabKeep
@testable import TabKeepSync

@Suite struct BadInputTests {
    /// A reply with two documents, a receiving store, and the store's checksum before anything.
    func fixture(_ directory: TemporaryDirectory) throws -> (
        bytes: [UInt8], receiver: SyncSession, before: UInt32
    ) {
        let sender = try directory.store("sender")
        let receiver = try directory.store("receiver")
        try sender.edit(
            profile("alice"), catalog: letterTabs, [.move(tab("c"), to: 0), .addToBadge(tab("a"), 2)])
        try sender.edit(profile("bob"), catalog: letterTabs, [.setBadgeText(tab("b"), "new"), .reset])
        try receiver.edit(profile("carol"), catalog: letterTabs, .setHidden(tab("d"), true))
        let session = SyncSession(store: receiver)
        let reply = try SyncSession(store: sender).respond(to: session.request())
        return (reply.encoded(), session, try recordChecksum(receiver))
    }

    /// Decodes and applies `bytes`; returns the error, or nil when it was accepted.
    func refusal(_ bytes: [UInt8], by session: SyncSession) -> SyncError? {
        do {
            try session.receive(SyncMessage(decoding: bytes))
            return nil
        } catch {
            return error
        }
    }

    /// `body` (everything but the CRC) with a correct CRC appended.
    func sealed(_ body: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes = body
        writer.fixed32(CRC32.checksum(body))
        return writer.bytes
    }

    @Test func everyTruncationAndEverySingleBitFlipIsRefusedAndChangesNothing() throws {
        let directory = TemporaryDirectory()
        let (bytes, session, before) = try fixture(directory)
        for length in 0..<bytes.count {
            let error = refusal(Array(bytes.prefix(length)), by: session)
            #expect(error != nil, "truncated to \(length) bytes")
            #expect(error.map { "\($0)".isEmpty } == false)
        }
        for index in bytes.indices {
            for bit in 0..<8 {
                var flipped = bytes
                flipped[index] ^= 1 << bit
                #expect(refusal(flipped, by: session) != nil, "bit \(bit) of byte \(index)")
            }
        }
        #expect(try recordChecksum(session.store) == before)
    }

    @Test func aProfileOrBarThatIsNotUTF8IsRefusedByName() throws {
        let directory = TemporaryDirectory()
        let (bytes, session, before) = try fixture(directory)
        let body = Array(bytes.dropLast(4))
        for (name, what) in [("alice", "section 0's profile"), ("main", "a bar of \"alice\"")] {
            // The name's length-prefixed bytes, its second byte made one that UTF-8 never holds.
            let needle = [UInt8(name.utf8.count)] + Array(name.utf8)
            guard
                let start = (0...(body.count - needle.count)).first(where: {
                    Array(body[$0..<($0 + needle.count)]) == needle
                })
            else {
                Issue.record("\(name) not found in the reply")
                continue
            }
            var broken = body
            broken[start + 2] = 0xFF
            let error = refusal(sealed(broken), by: session)
            #expect("\(error.map { "\($0)" } ?? "accepted")".contains("\(what) is not valid UTF-8"))
        }
        #expect(try recordChecksum(session.store) == before)
    }

    @Test func oversizedCountsAreRefusedWithTheLimitNamed() throws {
        let directory = TemporaryDirectory()
        let (_, session, before) = try fixture(directory)
        var header = ByteWriter()
        header.bytes = SyncMessage.magic + [SyncMessage.formatVersion, SyncMessage.Kind.reply.rawValue]
        header.fixed64(42)
        header.byte(0)  // every profile
        header.varint(7)  // the requester's revision (format 5)
        header.varint(1)  // one section
        header.string("alice")
        let prefix = header.bytes
        var hugeVector = ByteWriter()
        hugeVector.bytes = prefix
        hugeVector.varint(1 << 40)
        let vectorError = refusal(sealed(hugeVector.bytes), by: session)
        #expect("\(vectorError!)".contains("more than the limit of 65536"))
        var hugeEntries = ByteWriter()
        hugeEntries.bytes = prefix
        hugeEntries.varint(0)
        hugeEntries.varint(0)
        hugeEntries.varint(0)  // no digest
        hugeEntries.varint(900_000)
        let entriesError = refusal(sealed(hugeEntries.bytes), by: session)
        #expect("\(entriesError!)".contains("cannot fit"))
        let tooLarge = [UInt8](repeating: 0, count: SyncMessage.maxSize + 1)
        #expect(
            refusal(tooLarge, by: session)
                == .tooLarge(size: SyncMessage.maxSize + 1, limit: SyncMessage.maxSize))
        #expect(try recordChecksum(session.store) == before)
    }

    @Test func aNewerFormatVersionIsRefusedNamingTheVersion() throws {
        let directory = TemporaryDirectory()
        let (bytes, session, before) = try fixture(directory)
        var newer = Array(bytes.dropLast(4))
        newer[4] = 6
        let error = refusal(sealed(newer), by: session)
        #expect(error == .newerFormat(found: 6, supported: 5))
        #expect("\(error!)".contains("format version 6 is newer"))
        #expect(try recordChecksum(session.store) == before)
    }

    @Test func aFirstFormatMessageIsRefusedNamingItsVersion() throws {
        let directory = TemporaryDirectory()
        let (bytes, session, before) = try fixture(directory)
        var older = Array(bytes.dropLast(4))
        older[4] = 1
        let error = refusal(sealed(older), by: session)
        #expect(error == .olderFormat(found: 1, supported: 5))
        #expect("\(error!)".contains("format version 1"))
        #expect(try recordChecksum(session.store) == before)
    }

    @Test func wellSealedButInconsistentMessagesAreRefused() throws {
        let directory = TemporaryDirectory()
        let (bytes, session, before) = try fixture(directory)
        let message = try SyncMessage(decoding: bytes)
        // Trailing bytes after the entries.
        #expect(refusal(sealed(Array(bytes.dropLast(4)) + [0]), by: session) != nil)
        // Entries past the sender's own vector.
        var behind = message
        behind.sections[0].vector = VersionVector()
        #expect("\(refusal(behind.encoded(), by: session)!)".contains("past its section's vector"))
        // A delta past a version the receiver has not reached.
        var gap = message
        gap.sections[0].base = VersionVector([ReplicaID(rawValue: 77): 5])
        #expect(
            refusal(gap.encoded(), by: session)
                == .missingHistory(
                    profile: message.sections[0].profile, replica: ReplicaID(rawValue: 77), needed: 5, have: 0
                ))
        // A document that holds one dot in two entries (the store's dots index would point two ways).
        var twice = message
        var entries = twice.sections[0].documents[0].document.entries
        #expect(entries.count >= 2)
        entries[1].dot = entries[0].dot
        twice.sections[0].documents[0].document = TabBarDocument(sorted: entries)
        let twiceRefusal = refusal(twice.encoded(), by: session).map { "\($0)" } ?? "accepted"
        #expect(twiceRefusal.contains("in two entries"), "\(twiceRefusal)")
        // A message built by hand with two sections of one profile: refused, not a crash.
        var repeated = message
        repeated.sections.append(message.sections[0])
        let repeatedRefusal = Result { () throws(SyncError) in try session.receive(repeated) }
        #expect(
            "\(repeatedRefusal)".contains("not in strictly increasing profile order"), "\(repeatedRefusal)")
        var repeatedRequest = try SyncSession(store: session.store).request()
        repeatedRequest.sections += repeatedRequest.sections
        #expect(repeatedRequest.sections.count >= 2)
        let responder = SyncSession(store: try directory.store("third"))
        let respondRefusal = Result { () throws(SyncError) in try responder.respond(to: repeatedRequest) }
        #expect(
            "\(respondRefusal)".contains("not in strictly increasing profile order"), "\(respondRefusal)")
        // A request handed to receive, and a message claiming to come from the receiver.
        #expect(refusal(try SyncSession(store: session.store).request().encoded(), by: session) != nil)
        var mine = message
        mine.sender = session.store.replicaID
        #expect(refusal(mine.encoded(), by: session) == .fromThisReplica(session.store.replicaID))
        #expect(try recordChecksum(session.store) == before)
        // And the untouched message still applies.
        #expect(refusal(bytes, by: session) == nil)
        #expect(try recordChecksum(session.store) != before)
    }
}
