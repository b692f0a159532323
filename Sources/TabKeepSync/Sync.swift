public import TabKeep

/// Syncs two stores in this process: after it returns, both hold the same documents.
///
/// ```swift
/// let report = try sync(phoneStore, tabletStore)
/// print(report.changedInFirst, report.changedInSecond)
/// ```
///
/// Runs the three messages of ``SyncSession`` through their encoded bytes, as a remote exchange
/// would. Each store applies one message in one write transaction. Entries stamped more than
/// `maxDrift` ahead of this machine's clock make that message refused with
/// ``SyncError/clockDrift(aheadMilliseconds:limitMilliseconds:)``.
@discardableResult
public func sync(_ first: TabKeepStore, _ second: TabKeepStore, maxDrift: Duration = .seconds(300))
    throws(SyncError) -> SyncReport
{
    let a = SyncSession(store: first, maxDrift: maxDrift)
    let b = SyncSession(store: second, maxDrift: maxDrift)
    let request = try a.request().encoded()
    let reply = try b.respond(to: SyncMessage(decoding: request))
    let replyBytes = reply.encoded()
    let receiptA = try a.receive(SyncMessage(decoding: replyBytes))
    guard let final = receiptA.reply else { throw .unexpectedKind(reply.kind, expected: "a reply") }
    let finalBytes = final.encoded()
    let receiptB = try b.receive(SyncMessage(decoding: finalBytes))
    return SyncReport(
        changedInFirst: receiptA.changed, changedInSecond: receiptB.changed,
        documentsToFirst: reply.entries.count, documentsToSecond: final.entries.count,
        bytesExchanged: request.count + replyBytes.count + finalBytes.count)
}
