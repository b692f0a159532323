import Foundation
import LMDBKit

/// Opening a store: the schema probe, the first `meta` records of a new store, and the checks of
/// the locking mode it recorded.
extension TabKeepStore {
    /// The mode `meta` records for a data file that came without the lock file of either mode (a
    /// copy of `data.mdb` alone: no process can be using it), lmdb for such a store made before
    /// the mode was recorded, or nil for every other directory. `hasDataFile`: whether `data.mdb`
    /// is there, as the caller found.
    static func recordedLocking(_ files: StoreFiles, hasDataFile: Bool) throws(LMDBError) -> Locking? {
        guard hasDataFile, !StoreFiles.exists(files.lock), !StoreFiles.exists(files.transactionLock)
        else { return nil }
        let path = files.directory
        guard try Environment.peek(path: path, database: Records.meta, key: Records.MetaKey.schema) != nil
        else {
            return nil
        }
        let recorded = try Environment.peek(path: path, database: Records.meta, key: Records.MetaKey.locking)
        return recorded.map { Locking(rawValue: String(decoding: $0, as: UTF8.self)) ?? .lmdb } ?? .lmdb
    }

    static func checkSchema(_ bytes: [UInt8]) throws(TabKeepError) {
        guard let schema = Records.uint64(bytes) else {
            throw .corruptMeta("schema is \(bytes.count) bytes, not 8")
        }
        guard schema <= Records.schemaVersion else {
            throw .newerSchema(found: Int(clamping: schema), supported: Records.schemaVersion)
        }
    }

    /// What an open reads of `meta`: the identity, the schema and whether the store is a backup copy.
    struct OpenedMeta {
        var replica: ReplicaID
        var created: UInt64
        var schema: UInt64
        var isCopy: Bool
        /// The recorded locking mode's name, nil in a store made before it was recorded.
        var locking: String? = nil
    }

    /// The `meta` records an open reads, the schema first: the open's first transaction reads them (``Environment/open(path:configuration:probing:keys:accept:)``).
    static let openedMetaKeys = [
        Records.MetaKey.schema, Records.MetaKey.replica, Records.MetaKey.created, Records.MetaKey.copyOf,
        Records.MetaKey.locking,
    ]

    /// What `meta` says of the store, from the values of ``openedMetaKeys`` the open read; nil
    /// when it holds no schema (a new store).
    static func openedMeta(probed values: [[UInt8]?]) throws(TabKeepError) -> OpenedMeta? {
        do {
            return try openedMeta { key in values[openedMetaKeys.firstIndex(of: key)!] }
        } catch {
            throw TabKeepError.wrap(error)
        }
    }

    /// Reads `meta`, from the values the open read when it did (`probed`, the values of
    /// ``openedMetaKeys``; nil when this process had the store open already) or in one read
    /// transaction, writing it first when the store is new.
    static func initializeMeta(
        _ env: Environment, meta: Database, readOnly: Bool, probed: [[UInt8]?]? = nil
    )
        throws(TabKeepError)
        -> OpenedMeta
    {
        do {
            if let probed, let existing = try openedMeta(probed: probed) {
                try checkLocking(existing, env)
                return existing
            }
            if let existing = try env.read({ txn in try readOpenedMeta(txn, meta: meta) }) {
                try checkLocking(existing, env)
                return existing
            }
            if readOnly {
                throw TabKeepError.corruptMeta(
                    "meta holds no schema or replica id (damaged, or not a TabKeep store); opened read-only, nothing was written"
                )
            }
            return try env.write { txn in
                if let existing = try readOpenedMeta(txn, meta: meta) { return existing }
                let replica = ReplicaID.random()
                let created = HybridLogicalClock.wallMilliseconds()
                try txn.put(
                    meta, key: Records.MetaKey.schema, value: Records.bigEndian(UInt64(Records.schemaVersion))
                )
                try txn.put(meta, key: Records.MetaKey.replica, value: Records.bigEndian(replica.rawValue))
                try txn.put(meta, key: Records.MetaKey.clock, value: Records.bigEndian(0))
                try txn.put(meta, key: Records.MetaKey.created, value: Records.bigEndian(created))
                try txn.put(meta, key: Records.MetaKey.locking, value: Array(env.locking.rawValue.utf8))
                return OpenedMeta(
                    replica: replica, created: created, schema: UInt64(Records.schemaVersion), isCopy: false)
            }
        } catch {
            throw TabKeepError.wrap(error)
        }
    }

    /// The identity, schema, copy mark and locking mode `meta` holds, or nil when it holds no schema.
    static func readOpenedMeta(_ txn: borrowing Transaction, meta: Database) throws -> OpenedMeta? {
        try openedMeta { key in try txn.get(meta, key: key) }
    }

    /// The identity, schema, copy mark and locking mode of the `meta` records `value` reads, or
    /// nil when there is no schema. Throws ``TabKeepError/corruptMeta(_:)`` for a malformed
    /// schema or replica id.
    static func openedMeta(_ value: ([UInt8]) throws -> [UInt8]?) throws -> OpenedMeta? {
        guard let schemaBytes = try value(Records.MetaKey.schema) else { return nil }
        try checkSchema(schemaBytes)
        guard let replica = try value(Records.MetaKey.replica).flatMap(Records.uint64), replica != 0
        else { throw TabKeepError.corruptMeta("replica id missing or malformed") }
        return OpenedMeta(
            replica: ReplicaID(rawValue: replica),
            created: try value(Records.MetaKey.created).flatMap(Records.uint64) ?? 0,
            schema: Records.uint64(schemaBytes) ?? 0,
            isCopy: try value(Records.MetaKey.copyOf) != nil,
            locking: try value(Records.MetaKey.locking).map { String(decoding: $0, as: UTF8.self) })
    }

    /// Throws when the mode the store recorded at its creation is not the one its directory shows:
    /// a per-transaction store whose lock file was lost opened in lmdb mode.
    static func checkLocking(_ opened: OpenedMeta, _ env: Environment) throws(TabKeepError) {
        guard let recorded = opened.locking, recorded != env.locking.rawValue else { return }
        guard recorded == Locking.perTransaction.rawValue else {
            if Locking(rawValue: recorded) == nil {
                throw .corruptMeta("unknown locking mode \"\(recorded)\"")
            }
            return  // an lmdb store is never opened per-transaction: its directory has no lock file
        }
        throw .invalidDirectory(
            path: env.path,
            reason:
                "it was created in per-transaction locking mode but its lock file \(Environment.transactionLockFileName) is missing; nothing was written (with no process using the store, create that empty file to open it)"
        )
    }
}
