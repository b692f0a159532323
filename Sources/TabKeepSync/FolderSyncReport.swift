public import TabKeep

/// What ``FolderTransport/sync()`` read, applied, skipped and wrote.
public struct FolderSyncReport: Hashable, Sendable {
    /// Other replicas' files that were applied (possibly changing nothing).
    public var applied: [AppliedFile] = []
    /// Files that were skipped, each with the reason; they are tried again next time.
    public var skipped: [SkippedFile] = []
    /// This replica's file name, rewritten by the sync.
    public var written: String
    /// Documents in the file written.
    public var documentsWritten = 0
    /// Bytes of the file written.
    public var bytesWritten = 0
    /// The bad claims other replicas' files showed, dropped and repaired (see `OverClaim` (TabKeep)).
    public var overClaims: [OverClaim] = []

    /// A report of a sync that wrote `written` and has read nothing yet.
    public init(written: String) {
        self.written = written
    }
}

/// Another replica's file that a folder sync applied.
public struct AppliedFile: Hashable, Sendable {
    /// The file name in the folder.
    public var name: String
    /// The replica that wrote it.
    public var sender: ReplicaID
    /// The documents whose stored value changed.
    public var changed: [DocumentKey]

    /// A record of `name`, from `sender`, having changed `changed`.
    public init(name: String, sender: ReplicaID, changed: [DocumentKey]) {
        self.name = name
        self.sender = sender
        self.changed = changed
    }
}

/// A file in a sync folder that was not applied, and why.
public struct SkippedFile: Hashable, Sendable, CustomStringConvertible {
    /// The name as listed in the folder.
    public var name: String
    /// What is wrong with it.
    public var reason: SyncError

    /// A record of skipping `name` for `reason`.
    public init(name: String, reason: SyncError) {
        self.name = name
        self.reason = reason
    }

    /// "name: reason".
    public var description: String {
        if case .file(let path, let why) = reason, path == name { return "\(name): \(why)" }
        return "\(name): \(reason)"
    }
}
