public import TabKeep

/// What ``ObjectStoreTransport/sync()`` read, applied, skipped and wrote, and the requests it made.
public struct ObjectStoreSyncReport: Hashable, Sendable {
    /// Other replicas' objects that were downloaded and applied (possibly changing nothing).
    public var applied: [AppliedObject] = []
    /// Objects that were not applied, each with the reason; they are tried again next time.
    public var skipped: [SkippedObject] = []
    /// Bad version vectors the objects showed (see `OverClaim`), dropped and repaired: that
    /// profile went whole in this replica's object, and the object is read again next time.
    public var overClaims: [OverClaim] = []
    /// Other replicas' objects already applied at the ETag listed: no GET was made for them.
    public var unchanged: [String] = []
    /// This replica's object key.
    public var key: String
    /// Whether this replica's object was written (false when it already held these bytes).
    public var wrote = false
    /// Documents in this replica's object.
    public var documentsWritten = 0
    /// Bytes of this replica's object.
    public var bytesWritten = 0
    /// The requests made: list pages, GETs that downloaded a body, GETs answered 304, PUTs.
    public var requests = Requests()

    /// A report of a sync of `key` that has done nothing yet.
    public init(key: String) {
        self.key = key
    }

    /// Requests a sync made, by kind (not counting retries).
    public struct Requests: Hashable, Sendable {
        /// List requests (one a page).
        public var list = 0
        /// GETs that downloaded an object.
        public var fullGets = 0
        /// Conditional GETs answered 304 Not Modified.
        public var notModified = 0
        /// PUTs of this replica's object.
        public var puts = 0
        /// Every request.
        public var total: Int { list + fullGets + notModified + puts }

        /// No requests.
        public init() {}
    }
}

/// Another replica's object that a sync applied.
public struct AppliedObject: Hashable, Sendable {
    /// The object's key.
    public var key: String
    /// The replica that wrote it.
    public var sender: ReplicaID
    /// The documents whose stored value changed.
    public var changed: [DocumentKey]

    /// A record of `key`, from `sender`, having changed `changed`.
    public init(key: String, sender: ReplicaID, changed: [DocumentKey]) {
        self.key = key
        self.sender = sender
        self.changed = changed
    }
}

/// An object under the prefix that was not applied, and why.
public struct SkippedObject: Hashable, Sendable, CustomStringConvertible {
    /// The object's key.
    public var key: String
    /// What is wrong with it, in a sentence.
    public var reason: String

    /// A record of skipping `key` for `reason`.
    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }

    /// "key: reason".
    public var description: String { "\(key): \(reason)" }
}
