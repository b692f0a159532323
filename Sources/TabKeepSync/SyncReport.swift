public import TabKeep

/// What an in-process ``sync(_:_:profiles:maxDrift:)`` exchanged and changed.
public struct SyncReport: Hashable, Sendable {
    /// The documents that changed in the first store.
    public var changedInFirst: [DocumentKey]
    /// The documents that changed in the second store.
    public var changedInSecond: [DocumentKey]
    /// Documents sent to the first store (in the reply).
    public var documentsToFirst: Int
    /// Documents sent to the second store (in the final message).
    public var documentsToSecond: Int
    /// Encoded bytes of the three messages together.
    public var bytesExchanged: Int
    /// The bad claims found by either store, dropped and repaired (see `OverClaim` (TabKeep)).
    public var overClaims: [OverClaim] = []

    /// A report with every figure given.
    public init(
        changedInFirst: [DocumentKey], changedInSecond: [DocumentKey], documentsToFirst: Int,
        documentsToSecond: Int, bytesExchanged: Int
    ) {
        self.changedInFirst = changedInFirst
        self.changedInSecond = changedInSecond
        self.documentsToFirst = documentsToFirst
        self.documentsToSecond = documentsToSecond
        self.bytesExchanged = bytesExchanged
    }
}
