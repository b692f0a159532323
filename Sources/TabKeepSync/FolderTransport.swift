public import Foundation
public import TabKeep

/// Syncs a store through a shared folder (iCloud Drive, Dropbox, a network share…).
///
/// ```swift
/// let transport = try FolderTransport(folder: sharedFolder, store: store)
/// let report = try transport.sync()
/// for file in report.skipped { print("skipped \(file)") }   // retried on the next sync
/// ```
///
/// Each replica writes only its own file, `<replica-id>.tkdelta` (16 lowercase hex digits), and
/// reads everyone else's. A sync first applies every other replica's file, each in one write
/// transaction, then rewrites this replica's file with what the others lack: a delta past the
/// smallest version seen in their files, or the full state when there are none. The file is
/// written to a temporary file in the folder, fsynced and renamed (mode 0600), so readers see
/// either the old file or the new one.
///
/// A file with a bad name, a symlink or anything but a regular file, a partial or corrupt
/// message, or one whose sender is not the replica its name says is skipped and reported in
/// ``FolderSyncReport/skipped``; nothing is kept about it, so it is tried again next time. Names
/// are checked before any path is built, so nothing outside the folder is read or written.
///
/// A file is a message: a vector in it that claims more than its writer's store holds is
/// dropped and repaired as in ``SyncSession`` (listed in ``FolderSyncReport/overClaims``), and
/// this replica's file then carries the whole of that profile.
public struct FolderTransport: Sendable {
    /// The extension of sync files.
    public static let fileExtension = "tkdelta"

    /// The shared folder's path.
    public let folder: String
    /// The store this replica syncs.
    public let store: TabKeepStore
    /// The profiles this folder serves: only they are read from other files and written to this
    /// replica's file (every profile when nil).
    public let profiles: Set<ProfileID>?
    /// How far ahead of this machine's clock incoming entries may be stamped (default 5 minutes).
    public var maxDrift: Duration

    /// A transport for `store`'s `profiles` (every profile when nil) through `folder`, which must
    /// be an existing directory. A folder serves one scope, typically one person's profile.
    public init(
        folder: URL, store: TabKeepStore, profiles: Set<ProfileID>? = nil, maxDrift: Duration = .seconds(300)
    ) throws(SyncError) {
        try self.init(path: folder.path, store: store, profiles: profiles, maxDrift: maxDrift)
    }

    /// A transport for `store`'s `profiles` through the directory at `path`.
    public init(
        path: String, store: TabKeepStore, profiles: Set<ProfileID>? = nil, maxDrift: Duration = .seconds(300)
    ) throws(SyncError) {
        guard case .directory = try FolderFiles.kind(path) else {
            throw .file(
                path: path, reason: "not a directory (a sync folder must exist and be a real directory)")
        }
        self.folder = path
        self.store = store
        self.profiles = profiles
        self.maxDrift = maxDrift
    }

    /// This replica's file name in the folder.
    public var fileName: String { FolderTransport.fileName(for: store.replicaID) }

    /// The file name of `replica`: its 16 hex digits and `.tkdelta`.
    public static func fileName(for replica: ReplicaID) -> String {
        "\(replica).\(fileExtension)"
    }

    /// The replica a file name belongs to, or nil unless the name is exactly 16 lowercase hex
    /// digits and `.tkdelta` (so no `/`, `..` or anything else that could leave the folder).
    public static func replica(fromFileName name: String) -> ReplicaID? {
        let suffix = "." + fileExtension
        let utf8 = Array(name.utf8)
        guard utf8.count == 16 + suffix.utf8.count, name.hasSuffix(suffix) else { return nil }
        guard let replica = try? ReplicaID(hex: String(decoding: utf8[0..<16], as: UTF8.self)),
            replica.rawValue != 0
        else { return nil }
        return replica
    }

    /// Whether `name` is a write in progress: `.<16 hex>.tkdelta.tmp-<hex>`, left alone.
    static func isTemporaryFileName(_ name: String) -> Bool {
        guard name.hasPrefix("."), let marker = name.range(of: ".tmp-") else { return false }
        let final = String(name[name.index(after: name.startIndex)..<marker.lowerBound])
        let suffix = name[marker.upperBound...]
        return replica(fromFileName: final) != nil && !suffix.isEmpty
            && suffix.utf8.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }

    /// Applies every other replica's file, then rewrites this replica's file.
    ///
    /// Throws only when this replica's own store or file fails; a bad file of another replica is
    /// skipped and reported instead.
    @discardableResult
    public func sync() throws(SyncError) -> FolderSyncReport {
        try sync(names: FolderFiles.names(in: folder))
    }

    /// ``sync()`` over the given directory listing (tests pass crafted names).
    func sync(names: [String]) throws(SyncError) -> FolderSyncReport {
        var report = FolderSyncReport(written: fileName)
        var seen: [[ProfileID: VersionVector]] = []
        var untrusted: Set<ProfileID> = []
        var pending = names.filter { $0 != fileName && !FolderTransport.isTemporaryFileName($0) }
        // A file may be a delta past what another file brings: a second pass applies it.
        for pass in 0..<2 {
            var waiting: [String] = []
            for name in pending {
                do throws(SyncError) {
                    let received = try receive(name, seen: &seen)
                    report.applied.append(
                        AppliedFile(name: name, sender: received.sender, changed: received.changed))
                    report.overClaims += received.overClaims
                    untrusted.formUnion(received.untrusted)
                } catch {
                    if case .store(let storeError) = error { throw .store(storeError) }
                    if case .missingHistory = error, pass == 0 {
                        waiting.append(name)
                    } else {
                        report.skipped.append(SkippedFile(name: name, reason: error))
                    }
                }
            }
            pending = waiting
        }
        let (bytes, documents) = try log.own(after: seen, fullState: untrusted)
        try FolderFiles.replace(fileName, in: folder, with: bytes)
        report.documentsWritten = documents
        report.bytesWritten = bytes.count
        return report
    }

    /// The profiles this folder serves.
    var scope: ProfileScope { profiles.map { .only($0) } ?? .all }

    var session: SyncSession { log.session }

    /// The log this replica's file holds and other files are read as.
    var log: ReplicaLog { ReplicaLog(store: store, profiles: profiles, maxDrift: maxDrift) }

    /// Reads, checks and applies one other replica's file; its vector joins `seen` once the
    /// file is known to be a sound message from the replica its name says.
    private func receive(_ name: String, seen: inout [[ProfileID: VersionVector]]) throws(SyncError)
        -> ReplicaLog.Received
    {
        guard let replica = FolderTransport.replica(fromFileName: name) else {
            throw .file(
                path: name,
                reason: "not a sync file name (16 lowercase hex digits and .\(Self.fileExtension))")
        }
        let path = folder + "/" + name
        switch try FolderFiles.kind(path) {
        case .regular: break
        case .symlink: throw .file(path: name, reason: "a symlink; sync files must be regular files")
        case .directory: throw .file(path: name, reason: "a directory, not a sync file")
        case .other: throw .file(path: name, reason: "not a regular file")
        case .missing: throw .file(path: name, reason: "vanished while listing the folder")
        }
        let received = try log.receive(
            FolderFiles.contents(of: path, limit: SyncMessage.maxSize), from: replica, name: name)
        seen.append(received.vectors)
        return received
    }
}
