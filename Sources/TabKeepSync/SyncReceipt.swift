public import TabKeep

/// What ``SyncSession/receive(_:)`` did.
public struct SyncReceipt: Hashable, Sendable {
    /// The documents whose stored value changed.
    public var changed: [DocumentKey]
    /// The final message to send back (after a reply), or nil (after a final message).
    public var reply: SyncMessage?
    /// The bad claims the message showed, dropped and repaired (see `OverClaim` (TabKeep)).
    public var overClaims: [OverClaim]

    /// A receipt of `changed` documents, an optional message to send back and the bad claims found.
    public init(changed: [DocumentKey], reply: SyncMessage?, overClaims: [OverClaim] = []) {
        self.changed = changed
        self.reply = reply
        self.overClaims = overClaims
    }
}
