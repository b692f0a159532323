public import TabKeep

/// Syncs two stores in this process: after it returns, both hold the same documents of the
/// profiles in `profiles` (every profile when nil), and nothing of any other profile moved.
///
/// ```swift
/// let report = try sync(phoneStore, tabletStore)
/// print(report.changedInFirst, report.changedInSecond)
/// ```
///
/// Runs the three messages of ``SyncSession`` through their encoded bytes, as a remote exchange
/// would. Each store applies one message in one write transaction. Entries stamped more than
/// `maxDrift` ahead of this machine's clock make that message refused with
/// ``SyncError/clockDrift(aheadMilliseconds:limitMilliseconds:)``. A version vector that claims
/// more than its store holds is dropped and repaired, never trusted, and listed in
/// ``SyncReport/overClaims``.
@discardableResult
public func sync(
    _ first: TabKeepStore, _ second: TabKeepStore, profiles: Set<ProfileID>? = nil,
    maxDrift: Duration = .seconds(300)
) throws(SyncError) -> SyncReport {
    let scope: ProfileScope = profiles.map { .only($0) } ?? .all
    let a = SyncSession(store: first, scope: scope, maxDrift: maxDrift)
    let b = SyncSession(store: second, scope: scope, maxDrift: maxDrift)
    let request = try a.request().encoded()
    var foundBySecond: [OverClaim] = []
    let reply = try b.respond(to: SyncMessage(decoding: request), reporting: &foundBySecond)
    let replyBytes = reply.encoded()
    let receiptA = try a.receive(SyncMessage(decoding: replyBytes))
    guard let final = receiptA.reply else { throw .unexpectedKind(reply.kind, expected: "a reply") }
    let finalBytes = final.encoded()
    let receiptB = try b.receive(SyncMessage(decoding: finalBytes))
    var report = SyncReport(
        changedInFirst: receiptA.changed, changedInSecond: receiptB.changed,
        documentsToFirst: reply.documents.count, documentsToSecond: final.documents.count,
        bytesExchanged: request.count + replyBytes.count + finalBytes.count)
    report.overClaims = receiptA.overClaims + foundBySecond + receiptB.overClaims
    return report
}
