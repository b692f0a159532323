import Foundation
import Synchronization
import TabKeep
import TabKeepSync
import TabKeepTestSupport
import Testing

@testable import TabKeepS3

/// Broken or hostile answers from an in-process fake server: each gives a clear error or a
/// skipped object, never a crash, and changes nothing in the store.
@Suite struct HostileServerTests {
    let secret = "fake-secret-never-shown"

    func client(_ server: FakeHTTPServer, retries: Int = 0) throws -> S3Client {
        try S3Client(
            configuration: .init(
                endpoint: server.endpoint, region: "us-east-1", timeout: .seconds(10), retries: retries,
                backoff: .milliseconds(5)),
            credentials: StaticCredentialProvider(
                S3Credentials(accessKeyID: "AKIDFAKE", secretAccessKey: secret)))
    }

    /// A store with one edit, its documents before the sync, and a transport through `server`.
    func setUp(_ server: FakeHTTPServer, _ directory: TemporaryDirectory) async throws -> (
        ObjectStoreTransport, [DocumentKey: [UInt8]]
    ) {
        let store = try directory.store("phone")
        try await store.edit(profile("alice"), catalog: letterTabs, .move(tab("c"), to: 0))
        let transport = try ObjectStoreTransport(
            bucket: "bucket", prefix: "u", store: store, profiles: nil, client: client(server))
        return (transport, try documentBytes(store))
    }

    @Test(arguments: [
        ("truncated", Array(listXML([("u/0000000000000bad.tkdelta", "e", 10)]).dropLast(30))),
        ("not XML", Array("{\"objects\": []}".utf8)),
        ("wrong root", Array("<Other><Contents><Key>u/x</Key></Contents></Other>".utf8)),
        (
            "no ETag",
            Array(
                "<ListBucketResult><Contents><Key>u/x</Key><Size>1</Size></Contents></ListBucketResult>".utf8)
        ),
        (
            "bad size",
            Array(
                "<ListBucketResult><Contents><Key>u/x</Key><ETag>e</ETag><Size>-4</Size></Contents></ListBucketResult>"
                    .utf8)
        ),
        ("truncated page, no token", listXML([], truncated: true)),
        (
            "deep nesting",
            Array((String(repeating: "<a>", count: 200) + String(repeating: "</a>", count: 200)).utf8)
        ),
    ])
    func aBrokenListIsRefusedAndNothingIsWritten(_ name: String, _ body: [UInt8]) async throws {
        let server = try FakeHTTPServer { method, _ in
            method == "GET" ? .init(status: 200, body: body) : .init(status: 200)
        }
        let directory = TemporaryDirectory()
        let (transport, before) = try await setUp(server, directory)
        await #expect(throws: S3Error.self) { try await transport.sync() }
        do {
            try await transport.sync()
        } catch {
            guard case .malformedResponse = error else {
                Issue.record("\(name): \(error)")
                return
            }
            #expect("\(error)".contains("not an S3 answer"))
        }
        #expect(server.count("PUT") == 0)
        #expect(try documentBytes(transport.store) == before)
    }

    @Test func aRepeatedContinuationTokenEndsTheListing() async throws {
        let server = try FakeHTTPServer { _, _ in
            .init(status: 200, body: listXML([], truncated: true, token: "same"))
        }
        let directory = TemporaryDirectory()
        let (transport, _) = try await setUp(server, directory)
        await #expect(
            throws: S3Error.malformedResponse(reason: "a list page repeats its own continuation token")
        ) {
            try await transport.sync()
        }
        #expect(server.count("GET") == 2)
    }

    @Test func garbageBodiesAndOversizedObjectsAreSkippedAndChangeNothing() async throws {
        let garbage = "u/" + FolderTransport.fileName(for: ReplicaID(rawValue: 0xBAD))
        let huge = "u/" + FolderTransport.fileName(for: ReplicaID(rawValue: 0xB16))
        let html = "u/" + FolderTransport.fileName(for: ReplicaID(rawValue: 0x4711))
        let listing = listXML([
            (garbage, "g1", 12), (huge, "h1", SyncMessage.maxSize + 1), (html, "t1", 20),
        ])
        let server = try FakeHTTPServer { method, target in
            if method == "PUT" { return .init(status: 200, headers: ["ETag": "\"own\""]) }
            if target.contains("list-type=2") { return .init(status: 200, body: listing) }
            if target.hasSuffix("0000000000004711.tkdelta") {
                return .init(status: 200, body: Array("<html>hello</html>".utf8))
            }
            return .init(status: 200, body: Array("TKSY garbage!".utf8))
        }
        let directory = TemporaryDirectory()
        let (transport, before) = try await setUp(server, directory)
        let report = try await transport.sync()
        let reasons = Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.key, $0.reason) })
        #expect(Set(reasons.keys) == [garbage, huge, html])
        #expect(reasons[huge]!.contains("more than the limit"))
        #expect(reasons[html]!.contains("not a sync message"))
        #expect(report.applied.isEmpty)
        #expect(try documentBytes(transport.store) == before)
        #expect(server.count("GET") == 3)  // the list and two objects: the oversized one is never fetched
    }

    @Test func anOversizedListIsRefused() async throws {
        let padding = [UInt8](repeating: UInt8(ascii: " "), count: S3Client.maxListPageSize + 1)
        let server = try FakeHTTPServer { _, _ in .init(status: 200, body: padding) }
        let directory = TemporaryDirectory()
        let (transport, before) = try await setUp(server, directory)
        await #expect(throws: S3Error.responseTooLarge(limit: S3Client.maxListPageSize)) {
            try await transport.sync()
        }
        #expect(try documentBytes(transport.store) == before)
    }

    @Test func anAnswerAnnouncingATerabyteIsRefusedWithoutDownloadingIt() async throws {
        let server = try FakeHTTPServer { _, _ in
            .init(
                status: 200, headers: ["Content-Length": "1000000000000"],
                body: Array("<ListBucketResult>".utf8))
        }
        let directory = TemporaryDirectory()
        let (transport, before) = try await setUp(server, directory)
        await #expect(throws: S3Error.responseTooLarge(limit: S3Client.maxListPageSize)) {
            try await transport.sync()
        }
        #expect(try documentBytes(transport.store) == before)
    }

    @Test func serverErrorsAreRetriedWithBackoffThenNamed() async throws {
        let failures = Failures(count: 2)
        let server = try FakeHTTPServer { method, _ in
            if failures.take() {
                return .init(status: 503, body: Array("<Error><Code>SlowDown</Code></Error>".utf8))
            }
            return method == "PUT"
                ? .init(status: 200, headers: ["ETag": "\"e\""]) : .init(status: 200, body: listXML([]))
        }
        let directory = TemporaryDirectory()
        let store = try directory.store("phone")
        let transport = try ObjectStoreTransport(
            bucket: "bucket", prefix: "u", store: store, profiles: nil, client: client(server, retries: 3))
        let report = try await transport.sync()
        #expect(report.wrote)
        #expect(server.count("GET") == 3)  // two 503s, then the list

        let always = try FakeHTTPServer { _, _ in
            .init(status: 500, body: Array("<Error><Code>InternalError</Code></Error>".utf8))
        }
        let failing = try ObjectStoreTransport(
            bucket: "bucket", prefix: "u", store: store, profiles: nil, client: client(always, retries: 2))
        await #expect(throws: S3Error.server(status: 500, code: "InternalError", message: "")) {
            try await failing.sync()
        }
        #expect(always.count("GET") == 3)
    }

    @Test func aFailedPutIsAnErrorAndRetriedNextTime() async throws {
        let failPuts = Failures(count: 1)
        let server = try FakeHTTPServer { method, _ in
            if method == "PUT" {
                return failPuts.take()
                    ? .init(
                        status: 403,
                        body: Array("<Error><Code>AccessDenied</Code><Message>no</Message></Error>".utf8))
                    : .init(status: 200, headers: ["ETag": "\"e\""])
            }
            return .init(status: 200, body: listXML([]))
        }
        let directory = TemporaryDirectory()
        let (transport, _) = try await setUp(server, directory)
        await #expect(throws: S3Error.accessDenied(code: "AccessDenied", message: "no")) {
            try await transport.sync()
        }
        #expect(try await transport.sync().wrote)
    }

    @Test func clockSkewAndSecretsInAnswersAreNamedWithoutTheSecret() async throws {
        let secret = self.secret
        let server = try FakeHTTPServer { _, _ in
            .init(
                status: 403,
                body: Array(
                    "<Error><Code>RequestTimeTooSkewed</Code><Message>echo \(secret)</Message></Error>".utf8))
        }
        let directory = TemporaryDirectory()
        let (transport, _) = try await setUp(server, directory)
        do {
            try await transport.sync()
            Issue.record("no error")
        } catch {
            guard case .clockSkewed = error else {
                Issue.record("\(error)")
                return
            }
            #expect("\(error)".contains("clock") && !"\(error)".contains(secret))
        }
    }

    @Test func anUnreachableServerIsAConnectionError() async throws {
        let (socket, port) = try listeningSocket()
        close(socket)  // nothing listens on this port now
        let client = try S3Client(
            configuration: .init(
                endpoint: URL(string: "http://127.0.0.1:\(port)")!, region: "us-east-1", retries: 1,
                backoff: .milliseconds(5)),
            credentials: StaticCredentialProvider(S3Credentials(accessKeyID: "A", secretAccessKey: secret)))
        await #expect {
            try await client.listObjects(bucket: "bucket", prefix: "")
        } throws: { error in
            guard case S3Error.connection = error else { return false }
            return !"\(error)".contains(secret)
        }
    }

    @Test func badConfigurationIsRefusedBeforeAnyRequest() throws {
        let provider = StaticCredentialProvider(S3Credentials(accessKeyID: "A", secretAccessKey: "B"))
        #expect(throws: S3Error.self) {
            try S3Client(
                configuration: .init(endpoint: URL(string: "ftp://x")!, region: "r"), credentials: provider)
        }
        let client = try S3Client(
            configuration: .init(endpoint: URL(string: "http://127.0.0.1:1")!, region: "r"),
            credentials: provider)
        let directory = TemporaryDirectory()
        let store = try directory.store("s")
        for (bucket, prefix) in [
            ("Bad_Bucket", "p"), ("ok-bucket", "a/../b"), ("ok-bucket", "a//b"), ("ok-bucket", "a\n"),
        ] {
            #expect(throws: S3Error.self) {
                try ObjectStoreTransport(
                    bucket: bucket, prefix: prefix, store: store, profiles: nil, client: client)
            }
        }
    }

    @Test func anElementNameThatIsNotUTF8IsRefusedNotATrap() {
        // The list fuzz target's first find: FoundationXML's XMLParser, used then, trapped on it.
        var bytes = Array("<ListBu".utf8) + [0xC9, 0x00] + Array("etResult></ListBucketResult>".utf8)
        #expect {
            try S3XML.listPage(bytes)
        } throws: { error in
            "\(error)".contains("not UTF-8")
        }
        bytes = Array("<ListBu".utf8) + [0xC9] + Array("etResult></ListBucketResult>".utf8)
        #expect(throws: S3Error.self) { try S3XML.listPage(bytes) }
    }

    @Test(arguments: [
        "<!DOCTYPE x [<!ENTITY a \"b\">]><ListBucketResult/>",
        "<ListBucketResult><![CDATA[x]]></ListBucketResult>",
        "<ListBucketResult>&bogus;</ListBucketResult>", "<ListBucketResult>&#0;</ListBucketResult>",
        "<ListBucketResult>&#xD800;</ListBucketResult>", "<ListBucketResult></ListBucket>",
        "<ListBucketResult><a></ListBucketResult>", "<ListBucketResult/><extra/>", "<ListBucketResult a=b/>",
        "<ListBucketResult><!-- never closed", "<?xml version=\"1.0\"", "",
    ])
    func markupS3NeverSendsIsRefused(_ text: String) {
        #expect(throws: S3Error.self) { try S3XML.listPage(Array(text.utf8)) }
    }

    @Test func listParserReadsEntitiesAndContinuationTokens() throws {
        let page = try S3XML.listPage(listXML([("a/b.tkdelta", "abc", 5)], truncated: true, token: "t&amp;1"))
        #expect(page.objects == [S3ObjectSummary(key: "a/b.tkdelta", etag: "abc", size: 5)])
        #expect(page.continuationToken == "t&1")
    }
}

/// Fails the first `count` times it is asked.
final class Failures: Sendable {
    private let left: Mutex<Int>
    init(count: Int) { left = Mutex(count) }
    func take() -> Bool {
        left.withLock {
            guard $0 > 0 else { return false }
            $0 -= 1
            return true
        }
    }
}
