import Foundation
import LMDBKit
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

extension TemporaryDirectory {
    /// A new store in `name`, without fsync (tests do not need durability).
    func store(_ name: String) throws -> TabKeepStore {
        try TabKeepStore(path: sub(name), options: .init(durability: .deferred))
    }

    /// A new empty folder in `name`.
    func folder(_ name: String) -> String {
        try! FileManager.default.createDirectory(atPath: sub(name), withIntermediateDirectories: true)
        return sub(name)
    }
}

/// A CRC-32 of every record of every database of the store: equal exactly when the store's
/// bytes are (meta, including the clock, profiles — documents, dots and versions — catalogs and
/// the change log, whose last record carries the clock an edit reached).
func recordChecksum(_ store: TabKeepStore) throws -> UInt32 {
    var crc = CRC32()
    for name in ["meta", "profiles", "catalogs", "changes"] {
        let database = try store.environment.database(name)
        try store.environment.read { txn in
            try txn.forEach(database) { key, value in
                crc.update(Array(name.utf8))
                crc.update(key)
                crc.update(value)
                return true
            }
        }
    }
    return crc.value
}

/// Every stored document as its canonical bytes, erased ones included.
func documentBytes(_ store: TabKeepStore) throws -> [DocumentKey: [UInt8]] {
    var result: [DocumentKey: [UInt8]] = [:]
    try store.forEachDocument { key, document in result[key] = try document.get().encoded() }
    return result
}

/// The stored clock of a store's replica: the `meta` record "clock" and the clock in the change
/// log's last record (schema 3's edits write only that): the last of the tail that schema 5 keeps
/// in LMDB's main database under 0x00 ‖ "changes", else the last of `changes`.
func storedClock(_ store: TabKeepStore) throws -> [UInt8]? {
    let meta = try store.environment.database("meta")
    let changes = try store.environment.database("changes")
    let tail = KeyRange.prefix(changeTailPrefix)
    return try store.environment.read { txn in
        var last: [UInt8]?
        try txn.forEach(.main, in: tail, reverse: true) { _, value in
            last = Array(value.prefix(8))
            return false
        }
        if last == nil {
            last = try txn.withCursor(changes) { cursor in try cursor.last().map { Array($0.value.prefix(8)) }
            }
        }
        return (try txn.get(meta, key: Array("clock".utf8)) ?? []) + (last ?? [])
    }
}
