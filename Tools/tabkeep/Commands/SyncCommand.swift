import Foundation
import TabKeep
import TabKeepSync
import ToolSupport

/// `tabkeep sync`: exchange edits with another store, directly, through a shared folder, or
/// through an S3-compatible object store.
///
/// All ways go through the libraries (DESIGN.md §6): `--peer` runs TabKeepSync's three-message
/// exchange (`sync(_:_:profiles:maxDrift:)`), `--folder` its `FolderTransport`, `--s3` TabKeepS3's
/// `ObjectStoreTransport`. The tool adds only checks and words.
enum SyncCommand {
    static let peer = Option(
        name: "peer", placeholder: "OTHER_STORE", help: "exchange sync messages with this store directly")
    static let folder = Option(
        name: "folder", placeholder: "DIR", help: "through per-device files in a replicated folder")
    static let s3 = Option(
        name: "s3", placeholder: "s3://BUCKET/PREFIX",
        help: "through per-device objects in an S3-compatible store",
        parse: parseS3URL)
    static let endpoint = Option(
        name: "endpoint", placeholder: "URL",
        help: "the object store's http(s) URL, with --s3 (default: AWS S3)"
    ) { (text) throws(UsageError) in
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
            throw UsageError("--endpoint \(text) is not an http:// or https:// URL")
        }
        return url
    }

    static let command = Command(
        name: "sync",
        summary: "Exchange edits with another store, both ways, through a shared folder or an object store.",
        details: """
            --peer OTHER_STORE: the two stores exchange sync messages: each receives exactly the
            entries the other lacks (found from its version vector) and merges them in one
            transaction; afterwards both hold the same documents.
            --folder DIR: the per-device log in a replicated folder (iCloud Drive, Dropbox, a
            network share). The folder must exist. Every other replica's <replica-id>.tkdelta file
            is applied, then this store's own file is rewritten with what the others lack. Each
            applied file is listed on stdout. A file that cannot be applied (a bad name, a partial
            or corrupt file, a symlink) is skipped with "tabkeep: warning: skipped FILE: reason" on
            stderr and tried again next time; skipped files do not make the sync fail: the exit
            status is 0 whenever the sync ran, 1 only when this store or its own file failed.
            --s3 s3://BUCKET/PREFIX: the same per-device log in an S3-compatible object store (AWS
            S3, R2, MinIO, SeaweedFS): this store's object is PREFIX/<replica-id>.tkdelta, the
            folder's file byte for byte. Every other replica's object is applied, then this
            store's object is PUT if it changed; a bad object is skipped with a warning, as a
            bad file is. Credentials come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
            AWS_SESSION_TOKEN (temporary credentials), the region from AWS_REGION (default
            us-east-1). --endpoint URL names another server (path-style requests, e.g.
            http://127.0.0.1:8333); without it, AWS S3 in AWS_REGION (virtual-hosted-style).
            A wrong key, a missing bucket or a clock the server refuses fails with exit 1 and
            changes nothing. The secret is never printed.
            Every way, entries stamped more than --max-drift ahead of this machine's clock
            (default 5m; 90s, 10m, 2h, or seconds) are refused and nothing of that message is
            applied, and a version vector that claims more than its store holds is dropped and
            repaired (that profile is exchanged in full), with "tabkeep: warning: repaired a bad
            version vector: ..." on stderr.
            --profile P (repeatable) scopes the sync to those profiles: nothing of any other
            profile is read, sent, written to the folder or received. Without it, every profile.
            A folder serves one scope: sync a person's folder with --profile.

            Example:
              tabkeep sync ~/stores/phone --folder ~/iCloud/tabkeep-alice --profile alice
              tabkeep sync ~/stores/phone --peer ~/stores/laptop
              tabkeep sync ~/stores/phone --s3 s3://tabkeep-sync/users/alice --profile alice
            """,
        syntax: CommandSyntax(
            positionals: [Flags.store],
            flags: [
                .oneOf("way", peer), .oneOf("way", folder), .oneOf("way", s3), .optional(endpoint),
                .optional(Flags.profiles), .optional(Flags.maxDrift),
            ]),
        run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        if arguments.has(Self.endpoint) && !arguments.has(Self.s3) {
            throw UsageError("--endpoint goes with --s3")
        }
        let maxDrift = arguments[Flags.maxDrift] ?? .seconds(300)
        let profiles = arguments.has(Flags.profiles) ? Set(arguments.all(Flags.profiles)) : nil
        let path = arguments.value(of: Flags.store)
        let store = try Stores.existing(path)
        if let folder = arguments[Self.folder] {
            return try syncThroughFolder(store, folder, profiles: profiles, maxDrift: maxDrift)
        }
        if let location = arguments[Self.s3] {
            return try syncThroughObjectStore(
                store, location, endpoint: arguments[Self.endpoint], profiles: profiles, maxDrift: maxDrift)
        }
        let peer = try arguments.required(Self.peer)
        let other = try Stores.existing(peer)
        let here = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let there = URL(fileURLWithPath: peer).resolvingSymlinksInPath().path
        guard here != there else { throw ToolError(message: "a store cannot sync with itself") }
        guard store.replicaID != other.replicaID else {
            throw ToolError(
                message: "both stores have replica id \(store.replicaID): one is a backup copy of the other; "
                    + "restore a dump into a new store instead")
        }
        let report = try TabKeepSync.sync(store, other, profiles: profiles, maxDrift: maxDrift)
        for claim in report.overClaims { Output.warning("repaired a bad version vector: \(claim)") }
        print(
            "sent \(report.documentsToSecond) documents (\(report.changedInSecond.count) changed there), "
                + "received \(report.documentsToFirst) documents (\(report.changedInFirst.count) changed here)"
        )
        return 0
    }

    /// One `FolderTransport` sync: applied files on stdout, skipped ones as warnings.
    static func syncThroughFolder(
        _ store: TabKeepStore, _ folder: String, profiles: Set<ProfileID>?, maxDrift: Duration
    ) throws -> Int32 {
        let report = try FolderTransport(path: folder, store: store, profiles: profiles, maxDrift: maxDrift)
            .sync()
        for file in report.applied {
            print("applied \(file.name) from replica \(file.sender): \(file.changed.count) documents changed")
        }
        for file in report.skipped {
            Output.warning("skipped \(file)")
        }
        for claim in report.overClaims { Output.warning("repaired a bad version vector: \(claim)") }
        print(
            "wrote \(report.written): \(report.documentsWritten) documents, \(report.bytesWritten) bytes"
                + (report.skipped.isEmpty ? "" : " (\(report.skipped.count) files skipped)"))
        return 0
    }
}
