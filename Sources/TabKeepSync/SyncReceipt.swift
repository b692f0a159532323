public import TabKeep

/// What ``SyncSession/receive(_:)`` did.
public struct SyncReceipt: Hashable, Sendable {
    /// The documents whose stored value changed.
    public var changed: [DocumentKey]
    /// The final message to send back (after a reply), or nil (after a final message).
    public var reply: SyncMessage?

    /// A receipt of `changed` documents and an optional message to send back.
    public init(changed: [DocumentKey], reply: SyncMessage?) {
        self.changed = changed
        self.reply = reply
    }
}
