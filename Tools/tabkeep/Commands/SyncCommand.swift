import Foundation
import TabKeep

/// `tabkeep sync`: exchange edits with another store.
///
/// `--peer` runs the sync protocol of DESIGN.md §6 directly on the store API (each side sends what
/// the other's version vector lacks). `--folder` waits for TabKeepSync's `FolderTransport`.
enum SyncCommand {
    static let spec = CommandSpec(
        name: "sync", usage: "STORE (--peer OTHER_STORE | --folder DIR)",
        summary: "Exchange edits with another store, both ways.",
        details: """
            --peer OTHER_STORE: each store receives exactly the entries the other lacks (found from
            its version vector) and merges them in one transaction; afterwards both hold the same
            documents. Entries stamped more than 5 minutes ahead of this machine's clock are refused.
            --folder DIR: the per-device log in a replicated folder (needs TabKeepSync; not in this
            build yet).

            Example:
              tabkeep sync ~/stores/phone --peer ~/stores/laptop
            """,
        positionals: ["STORE"],
        flags: [FlagSpec(name: "peer", value: "OTHER_STORE"), FlagSpec(name: "folder", value: "DIR")],
        run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let peer = arguments.value("peer")
        let folder = arguments.value("folder")
        guard (peer == nil) != (folder == nil) else {
            throw UsageError(message: "give exactly one of --peer and --folder")
        }
        let store = try Stores.existing(arguments.positionals[0])
        if folder != nil {
            // TODO(TabKeepSync): FolderTransport lands with the sync branch; wire it here then.
            throw ToolError(
                message: "--folder needs TabKeepSync's FolderTransport, which this build does not have yet")
        }
        let other = try Stores.existing(peer!)
        let here = URL(fileURLWithPath: arguments.positionals[0]).resolvingSymlinksInPath().path
        let there = URL(fileURLWithPath: peer!).resolvingSymlinksInPath().path
        guard here != there else { throw ToolError(message: "a store cannot sync with itself") }
        guard store.replicaID != other.replicaID else {
            throw ToolError(
                message: "both stores have replica id \(store.replicaID): one is a backup copy of the other; "
                    + "restore a dump into a new store instead")
        }
        let (sent, received) = try syncPeers(store, other)
        print("sent \(sent.count) documents, received \(received.count) documents")
        return 0
    }

    /// One exchange both ways; returns the keys changed on the peer and here.
    static func syncPeers(_ here: TabKeepStore, _ there: TabKeepStore) throws -> (
        sent: [DocumentKey], received: [DocumentKey]
    ) {
        let toThere = try here.delta(after: there.versionVector())
        let sent = try there.apply(toThere.documents, vector: toThere.vector)
        let toHere = try there.delta(after: here.versionVector())
        let received = try here.apply(toHere.documents, vector: toHere.vector)
        return (sent, received)
    }
}
