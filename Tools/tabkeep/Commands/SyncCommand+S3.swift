import Dispatch
import Foundation
import Synchronization
import TabKeep
import TabKeepS3
import ToolSupport

/// `tabkeep sync STORE --s3 s3://BUCKET/PREFIX [--endpoint URL]`: one `ObjectStoreTransport` sync.
extension SyncCommand {
    /// Credentials and region from AWS's environment variables; the endpoint from `--endpoint`
    /// (path-style) or AWS's for the region (virtual-hosted-style).
    static func syncThroughObjectStore(
        _ store: TabKeepStore, _ location: S3Location, endpoint: URL?, profiles: Set<ProfileID>?,
        maxDrift: Duration
    ) throws -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let provider = EnvironmentCredentialProvider(environment: environment)
        _ = try provider.resolved()  // fail before any request when a variable is missing
        let region = environment["AWS_REGION"].flatMap { $0.isEmpty ? nil : $0 } ?? "us-east-1"
        let configuration: S3Client.Configuration
        if let endpoint {
            configuration = S3Client.Configuration(endpoint: endpoint, region: region)
        } else {
            configuration = .aws(region: region)
        }
        let client = try S3Client(configuration: configuration, credentials: provider)
        let transport = try ObjectStoreTransport(
            bucket: location.bucket, prefix: location.prefix, store: store, profiles: profiles,
            client: client,
            maxDrift: maxDrift)
        let report = try waitFor { () async throws(S3Error) -> ObjectStoreSyncReport in
            try await transport.sync()
        }
        for object in report.applied {
            print(
                "applied \(object.key) from replica \(object.sender): \(object.changed.count) documents changed"
            )
        }
        for claim in report.overClaims { Output.warning("repaired a bad version vector: \(claim)") }
        for object in report.skipped {
            Output.warning("skipped \(object)")
        }
        let requests = report.requests
        print(
            (report.wrote ? "wrote" : "unchanged") + " \(report.key): \(report.documentsWritten) documents, "
                + "\(report.bytesWritten) bytes; \(requests.total) requests (\(requests.list) list, "
                + "\(requests.fullGets) GET, \(requests.notModified) not modified, \(requests.puts) PUT)"
                + (report.skipped.isEmpty ? "" : " (\(report.skipped.count) objects skipped)"))
        return 0
    }

    /// `s3://BUCKET[/PREFIX]` as bucket and prefix.
    @Sendable static func parseS3URL(_ text: String) throws(UsageError) -> S3Location {
        guard text.hasPrefix("s3://") else {
            throw UsageError("--s3 \(text) is not s3://BUCKET/PREFIX")
        }
        let rest = text.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        guard !bucket.isEmpty else { throw UsageError("--s3 \(text) names no bucket") }
        return S3Location(bucket: bucket, prefix: String(rest.dropFirst(bucket.count).drop { $0 == "/" }))
    }

    /// Runs async work from this synchronous tool and waits for it (the main thread is not one of
    /// the concurrency pool's, so blocking it cannot starve the work).
    static func waitFor<Value: Sendable>(_ work: @escaping @Sendable () async throws(S3Error) -> Value)
        throws(S3Error) -> Value
    {
        let result = Mutex<Result<Value, S3Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<Value, S3Error>
            do throws(S3Error) {
                outcome = .success(try await work())
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}

/// Where `--s3` points: a bucket and a key prefix (possibly empty).
struct S3Location: Sendable {
    var bucket: String
    var prefix: String
}
