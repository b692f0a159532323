import Foundation
public import TabKeep
import TabKeepSync
import Synchronization

/// Syncs a store through any S3-compatible object store (AWS S3, R2, MinIO, SeaweedFS): the
/// folder transport's per-device log, with a key prefix for the folder.
///
/// ```swift
/// let client = try S3Client(configuration: .aws(region: "eu-west-1"), credentials: cognitoProvider)
/// let transport = try ObjectStoreTransport(
///     bucket: "tabkeep-sync", prefix: "users/\(userID)", store: store, profiles: [profile], client: client)
/// let report = try await transport.sync()   // on launch, on foreground, after an edit
/// ```
///
/// Each replica writes only its own object, `<prefix>/<replica-id>.tkdelta`, whose bytes are the
/// folder transport's file byte for byte (so a bucket mirrored into a folder syncs with
/// `FolderTransport`), and reads the others'. A sync lists the prefix, downloads each other
/// object whose listed ETag differs from the one this transport last applied (with
/// `If-None-Match` on that ETag, so an unchanged object costs no download and no decode), applies
/// each in one write transaction, then PUTs this replica's object only when its bytes changed.
///
/// An object with a bad name, one larger than a sync message may be, a partial, corrupt, foreign
/// or first-format message, or one that vanished between the list and the GET is skipped and
/// reported in `ObjectStoreSyncReport.skipped`, and tried again next time, as the folder
/// transport does with files. Keys deeper under the prefix (`<prefix>/x/…`) are not this
/// transport's and are ignored.
///
/// The ETags applied and the ETag and digest of this replica's last PUT are kept in memory, per
/// transport: keep one transport per (store, prefix) for the app's life. A new transport's first
/// sync downloads every other object once and PUTs its own once.
public final class ObjectStoreTransport: Sendable {
    /// The bucket.
    public let bucket: String
    /// The key prefix without a trailing slash (empty for the bucket's root): typically one person's.
    public let prefix: String
    /// The store this replica syncs.
    public let store: TabKeepStore
    /// The profiles this prefix serves (every profile when nil).
    public let profiles: Set<ProfileID>?
    /// The client that talks to the object store.
    public let client: S3Client
    /// How far ahead of this machine's clock incoming entries may be stamped.
    public let maxDrift: Duration

    private let memory = Mutex(Memory())

    /// What this transport remembers between syncs.
    private struct Memory: Sendable {
        /// Per other object: the ETag applied and the vectors it carried.
        var applied: [String: (etag: String, vectors: [ProfileID: VersionVector])] = [:]
        /// This replica's object as last PUT: its ETag and the SHA-256 of its bytes.
        var own: (etag: String, digest: [UInt8])?
    }

    /// A transport for `store`'s `profiles` through `bucket` under `prefix` (a trailing slash is
    /// dropped). Refuses a prefix with an empty segment, `.` or `..`, or control characters.
    public init(
        bucket: String, prefix: String, store: TabKeepStore, profiles: Set<ProfileID>?, client: S3Client,
        maxDrift: Duration = .seconds(300)
    ) throws(S3Error) {
        try S3Client.checkBucketName(bucket)
        var prefix = prefix
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let segments = prefix.split(separator: "/", omittingEmptySubsequences: false)
        guard prefix.isEmpty || segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }),
            prefix.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }),
            prefix.utf8.count <= 900
        else {
            throw .invalidConfiguration(
                reason:
                    "prefix \"\(prefix)\" has an empty segment, . or .., a control character, or is too long")
        }
        self.bucket = bucket
        self.prefix = prefix
        self.store = store
        self.profiles = profiles
        self.client = client
        self.maxDrift = maxDrift
    }

    /// This replica's object key.
    public var key: String { objectKey(FolderTransport.fileName(for: store.replicaID)) }

    private var listPrefix: String { prefix.isEmpty ? "" : prefix + "/" }

    private func objectKey(_ name: String) -> String { listPrefix + name }

    private var log: ReplicaLog { ReplicaLog(store: store, profiles: profiles, maxDrift: maxDrift) }

    /// Applies every other replica's object, then PUTs this replica's object if it changed.
    ///
    /// Throws when the listing fails (wrong credentials, no bucket, a clock the server refuses, a
    /// list that does not parse), when the store fails, or when the PUT fails (the previous object
    /// stays); a bad object of another replica is skipped and reported instead.
    @discardableResult
    public func sync() async throws(S3Error) -> ObjectStoreSyncReport {
        var report = ObjectStoreSyncReport(key: key)
        let listed = try await client.listObjects(bucket: bucket, prefix: listPrefix)
        report.requests.list = 1
        var ownListed: S3ObjectSummary?
        var downloaded: [(object: S3ObjectSummary, replica: ReplicaID, bytes: [UInt8])] = []
        var seen: [[ProfileID: VersionVector]] = []
        let remembered = memory.withLock { $0.applied }
        for object in listed {
            let name = String(object.key.dropFirst(listPrefix.count))
            guard !name.contains("/") else { continue }
            if object.key == key {
                ownListed = object
                continue
            }
            guard let replica = FolderTransport.replica(fromFileName: name) else {
                report.skipped.append(
                    SkippedObject(
                        key: object.key,
                        reason:
                            "not a sync object name (16 lowercase hex digits and .\(FolderTransport.fileExtension))"
                    ))
                continue
            }
            let known = remembered[object.key]
            if let known, known.etag == object.etag {
                report.unchanged.append(object.key)
                seen.append(known.vectors)
                continue
            }
            guard object.size <= SyncMessage.maxSize else {
                report.skipped.append(
                    SkippedObject(
                        key: object.key,
                        reason: "\(object.size) bytes is more than the limit of \(SyncMessage.maxSize) bytes")
                )
                continue
            }
            do throws(S3Error) {
                switch try await client.getObject(
                    bucket: bucket, key: object.key, ifNoneMatch: known?.etag, limit: SyncMessage.maxSize)
                {
                case .notModified:
                    report.requests.notModified += 1
                    report.unchanged.append(object.key)
                    if let known { seen.append(known.vectors) }
                case .object(let bytes, let etag):
                    report.requests.fullGets += 1
                    let listedAs = S3ObjectSummary(
                        key: object.key, etag: etag.isEmpty ? object.etag : etag, size: bytes.count)
                    downloaded.append((listedAs, replica, bytes))
                }
            } catch {
                switch error {
                case .server(404, _, _):
                    report.skipped.append(
                        SkippedObject(key: object.key, reason: "vanished between the list and the GET"))
                case .responseTooLarge, .malformedResponse, .server:
                    report.skipped.append(SkippedObject(key: object.key, reason: error.description))
                default: throw error
                }
            }
        }
        var untrusted: Set<ProfileID> = []
        try apply(downloaded, seen: &seen, untrusted: &untrusted, report: &report)
        try await putOwn(after: seen, fullState: untrusted, listed: ownListed, report: &report)
        return report
    }

    /// Applies downloaded objects, each in one transaction; an object that is a delta past what
    /// another brings gets a second pass.
    private func apply(
        _ downloaded: [(object: S3ObjectSummary, replica: ReplicaID, bytes: [UInt8])],
        seen: inout [[ProfileID: VersionVector]], untrusted: inout Set<ProfileID>,
        report: inout ObjectStoreSyncReport
    ) throws(S3Error) {
        let log = self.log
        var pending = downloaded
        for pass in 0..<2 {
            var waiting: [(object: S3ObjectSummary, replica: ReplicaID, bytes: [UInt8])] = []
            for item in pending {
                do throws(SyncError) {
                    let received = try log.receive(item.bytes, from: item.replica, name: item.object.key)
                    seen.append(received.vectors)
                    report.overClaims += received.overClaims
                    untrusted.formUnion(received.untrusted)
                    // An object whose vector was not trusted is read again next time, not skipped
                    // by its ETag: its remembered vector must never become a base to send past.
                    if received.untrusted.isEmpty {
                        memory.withLock { $0.applied[item.object.key] = (item.object.etag, received.vectors) }
                    } else {
                        _ = memory.withLock { $0.applied.removeValue(forKey: item.object.key) }
                    }
                    report.applied.append(
                        AppliedObject(
                            key: item.object.key, sender: received.sender, changed: received.changed))
                } catch {
                    if case .store = error { throw .sync(error) }
                    _ = memory.withLock { $0.applied.removeValue(forKey: item.object.key) }
                    if case .missingHistory = error, pass == 0 {
                        waiting.append(item)
                    } else {
                        let reason: String
                        if case .file(let path, let why) = error, path == item.object.key {
                            reason = why
                        } else {
                            reason = error.description
                        }
                        report.skipped.append(SkippedObject(key: item.object.key, reason: reason))
                    }
                }
            }
            pending = waiting
        }
    }

    /// PUTs this replica's log unless the object already holds exactly these bytes.
    private func putOwn(
        after seen: [[ProfileID: VersionVector]], fullState untrusted: Set<ProfileID>,
        listed: S3ObjectSummary?,
        report: inout ObjectStoreSyncReport
    )
        async throws(S3Error)
    {
        let own: (bytes: [UInt8], documents: Int)
        do {
            own = try log.own(after: seen, fullState: untrusted)
        } catch {
            throw .sync(error)
        }
        report.documentsWritten = own.documents
        report.bytesWritten = own.bytes.count
        let digest = Hashing.sha256(own.bytes)
        let last = memory.withLock { $0.own }
        if let last, let listed, last.etag == listed.etag, last.digest == digest { return }
        let etag = try await client.putObject(bucket: bucket, key: key, bytes: own.bytes)
        report.requests.puts = 1
        report.wrote = true
        memory.withLock { $0.own = (etag, digest) }
    }
}
