import Foundation
import TabKeep
import TabKeepSync
import TabKeepTestSupport
import Testing

@testable import TabKeepS3

/// The object-store transport against a real S3 server: SeaweedFS on loopback, enforcing SigV4.
@Suite struct SeaweedSyncTests {
    @Test func threeStoresEditOfflineAndConvergeThroughOnePrefix() async throws {
        let server = try await SeaweedFS.server()
        let bucket = try await server.bucket()
        let directory = TemporaryDirectory()
        let stores = try ["phone", "tablet", "laptop"].map { try directory.store($0) }
        let alice = profile("alice")
        let transports = try stores.map {
            try ObjectStoreTransport(
                bucket: bucket, prefix: "users/alice/", store: $0, profiles: [alice], client: server.client())
        }
        // Offline edits: a move on the phone, badge increments on two devices, a hide on the laptop.
        try await stores[0].edit(alice, catalog: letterTabs, .move(tab("e"), to: 0))
        try await stores[1].edit(alice, catalog: letterTabs, .addToBadge(tab("a"), 2))
        try await stores[2].edit(alice, catalog: letterTabs, .addToBadge(tab("a"), 3))
        try await stores[2].edit(alice, catalog: letterTabs, .setHidden(tab("c"), true))
        for _ in 0..<2 {
            for transport in transports {
                let report = try await transport.sync()
                #expect(report.skipped.isEmpty, "\(report.skipped)")
            }
        }
        // What the edits mean, worked out by hand: the move, the sum of increments, the hide.
        let expected = (order: ["e", "a", "b", "d", "f", "g"].map(tab), hidden: [tab("c")], badge: 5)
        let reference = try documentBytes(stores[0])
        for store in stores {
            let layout = try store.layout(alice, catalog: letterTabs)
            #expect(layout.order == expected.order)
            #expect(layout.hidden == expected.hidden)
            #expect(layout.badges[tab("a")] == expected.badge)
            #expect(try documentBytes(store) == reference)
        }
        let listed = try await server.client().listObjects(bucket: bucket, prefix: "")
        #expect(Set(listed.map(\.key)) == Set(transports.map(\.key)))
        #expect(listed.allSatisfy { $0.key.hasPrefix("users/alice/") && $0.key.hasSuffix(".tkdelta") })
    }

    @Test func theObjectsAreTheFolderTransportsFilesByteForByte() async throws {
        let server = try await SeaweedFS.server()
        let bucket = try await server.bucket()
        let directory = TemporaryDirectory()
        let phone = try directory.store("phone")
        try await phone.edit(profile("alice"), catalog: letterTabs, .move(tab("g"), to: 1))
        let transport = try ObjectStoreTransport(
            bucket: bucket, prefix: "p", store: phone, profiles: [profile("alice")], client: server.client())
        try await transport.sync()
        // A folder holding the bucket's object syncs a new store with the folder transport.
        let folder = directory.sub("mirror")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard
            case .object(let bytes, _) = try await server.client().getObject(
                bucket: bucket, key: transport.key, limit: 1 << 20)
        else { throw HarnessError(message: "no object") }
        let name = String(transport.key.dropFirst("p/".count))
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
        let laptop = try directory.store("laptop")
        let report = try FolderTransport(path: folder, store: laptop, profiles: [profile("alice")]).sync()
        #expect(report.skipped.isEmpty)
        #expect(
            try laptop.layout(profile("alice"), catalog: letterTabs)
                == phone.layout(profile("alice"), catalog: letterTabs))
        // And the folder file written by the laptop applies through the bucket.
        let written = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + report.written))
        try await server.client().putObject(bucket: bucket, key: "p/" + report.written, bytes: Array(written))
        let again = try await transport.sync()
        #expect(again.applied.map(\.sender) == [laptop.replicaID])
    }

    @Test func aPrefixScopedToAliceHoldsNoByteOfBobs() async throws {
        let server = try await SeaweedFS.server()
        let bucket = try await server.bucket()
        let directory = TemporaryDirectory()
        let stores = try ["phone", "tablet"].map { try directory.store($0) }
        let bobSecret = "bob-private-badge-7q"
        for store in stores {
            try await store.edit(profile("alice"), catalog: letterTabs, .addToBadge(tab("b"), 1))
            try await store.edit(profile("bob-x9"), catalog: letterTabs, .setBadgeText(tab("a"), bobSecret))
        }
        for store in stores {
            try await ObjectStoreTransport(
                bucket: bucket, prefix: "users/alice", store: store, profiles: [profile("alice")],
                client: server.client()
            ).sync()
        }
        let client = try server.client()
        let listed = try await client.listObjects(bucket: bucket, prefix: "")
        #expect(listed.count == 2)
        for object in listed {
            guard
                case .object(let bytes, _) = try await client.getObject(
                    bucket: bucket, key: object.key, limit: 1 << 20)
            else { throw HarnessError(message: "no object") }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains("bob-x9") && !text.contains(bobSecret))
            #expect(text.contains("alice"))
        }
    }

    @Test func aWrongSecretIsRefusedClearlyAndChangesNothing() async throws {
        let server = try await SeaweedFS.server()
        let bucket = try await server.bucket()
        let directory = TemporaryDirectory()
        let store = try directory.store("phone")
        try await store.edit(profile("alice"), catalog: letterTabs, .move(tab("b"), to: 0))
        let before = try documentBytes(store)
        let wrong = "wrong-secret-value-123"
        let transport = try ObjectStoreTransport(
            bucket: bucket, prefix: "u/alice", store: store, profiles: nil,
            client: server.client(secret: wrong))
        await #expect {
            try await transport.sync()
        } throws: { error in
            guard case S3Error.accessDenied(let code, _) = error else { return false }
            let text = "\(error)"
            return code == "SignatureDoesNotMatch" && text.contains("403") && !text.contains(wrong)
                && !text.contains(SeaweedFS.secret)
        }
        #expect(try documentBytes(store) == before)
        #expect(try await server.client().listObjects(bucket: bucket, prefix: "").isEmpty)
    }

    @Test func aMissingBucketIsNamedAndChangesNothing() async throws {
        let server = try await SeaweedFS.server()
        let directory = TemporaryDirectory()
        let store = try directory.store("phone")
        try await store.edit(profile("alice"), catalog: letterTabs, .move(tab("b"), to: 0))
        let before = try documentBytes(store)
        let transport = try ObjectStoreTransport(
            bucket: "no-such-bucket-tk", prefix: "u", store: store, profiles: nil, client: server.client())
        await #expect(throws: S3Error.noSuchBucket("no-such-bucket-tk")) { try await transport.sync() }
        #expect(try documentBytes(store) == before)
        #expect("\(S3Error.noSuchBucket("no-such-bucket-tk"))".contains("no bucket \"no-such-bucket-tk\""))
    }

    @Test func corruptTruncatedAndForeignObjectsAreSkippedAndChangeNothing() async throws {
        let server = try await SeaweedFS.server()
        let bucket = try await server.bucket()
        let client = try server.client()
        let directory = TemporaryDirectory()
        let store = try directory.store("phone")
        let other = try directory.store("tablet")
        try await other.edit(profile("alice"), catalog: letterTabs, .move(tab("d"), to: 0))
        let valid = try SyncSession(store: other).respond(to: SyncSession(store: store).request()).encoded()
        let name = { (raw: UInt64) in "u/" + FolderTransport.fileName(for: ReplicaID(rawValue: raw)) }
        try await client.putObject(bucket: bucket, key: name(0xBAD), bytes: (0..<300).map { UInt8($0 % 251) })
        try await client.putObject(
            bucket: bucket, key: name(0xCAFE), bytes: Array(valid.prefix(valid.count / 2)))
        try await client.putObject(bucket: bucket, key: name(0xF00D), bytes: valid)  // its sender is not F00D
        try await client.putObject(bucket: bucket, key: "u/notes.txt", bytes: Array("hello".utf8))
        try await client.putObject(bucket: bucket, key: "u/deeper/x.tkdelta", bytes: valid)
        let before = try documentBytes(store)
        let transport = try ObjectStoreTransport(
            bucket: bucket, prefix: "u", store: store, profiles: nil, client: client)
        let report = try await transport.sync()
        let reasons = Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.key, $0.reason) })
        #expect(Set(reasons.keys) == [name(0xBAD), name(0xCAFE), name(0xF00D), "u/notes.txt"])
        #expect(reasons[name(0xBAD)]!.contains("not a sync message"))
        #expect(reasons[name(0xCAFE)]!.contains("refused"))
        #expect(reasons[name(0xF00D)]!.contains("not the"))
        #expect(report.applied.isEmpty)
        #expect(try documentBytes(store) == before)
        // Skipped objects are tried again: once the bad one is replaced, the next sync applies it.
        try await client.putObject(bucket: bucket, key: name(0xCAFE), bytes: [])
        let renamed = "u/" + FolderTransport.fileName(for: other.replicaID)
        try await client.putObject(bucket: bucket, key: renamed, bytes: valid)
        let next = try await transport.sync()
        #expect(next.applied.map(\.key) == [renamed])
    }

    @Test func aSecondSyncWithNothingNewMakesNoPutAndNoFullGet() async throws {
        let server = try await SeaweedFS.server()
        let bucket = try await server.bucket()
        let directory = TemporaryDirectory()
        let stores = try ["phone", "tablet"].map { try directory.store($0) }
        try await stores[0].edit(profile("alice"), catalog: letterTabs, .move(tab("c"), to: 0))
        try await stores[1].edit(profile("alice"), catalog: letterTabs, .addToBadge(tab("a"), 1))
        let transports = try stores.map {
            try ObjectStoreTransport(
                bucket: bucket, prefix: "alice", store: $0, profiles: [profile("alice")],
                client: server.client())
        }
        // Objects settle once each replica's log is computed past what the others have seen (a
        // round in which nobody writes); after that, a sync with nothing new costs one list.
        var settled = false
        for _ in 0..<5 where !settled {
            var round: [ObjectStoreSyncReport] = []
            for transport in transports { round.append(try await transport.sync()) }
            settled = round.allSatisfy { !$0.wrote }
        }
        #expect(settled, "still writing after 5 rounds")
        for transport in transports {
            let quiet = try await transport.sync()
            #expect(quiet.requests.list == 1)
            #expect(quiet.requests.fullGets == 0)
            #expect(quiet.requests.puts == 0)
            #expect(quiet.requests.total == 1)
            #expect(quiet.unchanged.count == 1)
        }
        // One new edit: one PUT by its writer, one full GET by the other.
        try await stores[0].edit(profile("alice"), catalog: letterTabs, .addToBadge(tab("a"), 1))
        let sent = try await transports[0].sync()
        #expect(sent.requests.puts == 1 && sent.requests.fullGets == 0)
        let received = try await transports[1].sync()
        #expect(received.requests.fullGets == 1)
        #expect(try stores[1].layout(profile("alice"), catalog: letterTabs).badges[tab("a")] == 2)
    }

    @Test func aConditionalGetOfAnUnchangedObjectIsNotModified() async throws {
        let server = try await SeaweedFS.server()
        let bucket = try await server.bucket()
        let client = try server.client()
        let etag = try await client.putObject(bucket: bucket, key: "k/x", bytes: [1, 2, 3])
        #expect(
            try await client.getObject(bucket: bucket, key: "k/x", ifNoneMatch: etag, limit: 16)
                == .notModified)
        #expect(
            try await client.getObject(bucket: bucket, key: "k/x", ifNoneMatch: "0123", limit: 16)
                == .object(bytes: [1, 2, 3], etag: etag))
        await #expect(throws: S3Error.responseTooLarge(limit: 2)) {
            try await client.getObject(bucket: bucket, key: "k/x", limit: 2)
        }
    }
}
