import Foundation
import LMDBKit
import TabKeep
import Testing

@testable import TabKeepSync

/// A fresh directory for one test, removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.path + "/tabkeep-sync-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func sub(_ name: String) -> String { path + "/" + name }

    /// A new store in `name`, without fsync (tests do not need durability).
    func store(_ name: String) throws -> TabKeepStore {
        try TabKeepStore(path: sub(name), options: .init(durability: .deferred))
    }

    /// A new empty folder in `name`.
    func folder(_ name: String) -> String {
        try! FileManager.default.createDirectory(atPath: sub(name), withIntermediateDirectories: true)
        return sub(name)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

func tab(_ name: String) -> TabID { try! TabID(name) }
func profile(_ name: String) -> ProfileID { try! ProfileID(name) }

/// Seven default tabs, a…g.
let sevenTabs = try! Catalog(["a", "b", "c", "d", "e", "f", "g"].map(tab))

/// A CRC-32 of every record of every database of the store: equal exactly when the store's
/// bytes are (meta, including the clock, documents, dots, versions and catalogs).
func recordChecksum(_ store: TabKeepStore) throws -> UInt32 {
    var crc = CRC32()
    for name in ["meta", "documents", "dots", "versions", "catalogs"] {
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

/// The stored clock of a store's replica (the `meta` record "clock").
func storedClock(_ store: TabKeepStore) throws -> [UInt8]? {
    let meta = try store.environment.database("meta")
    return try store.environment.read { txn in try txn.get(meta, key: Array("clock".utf8)) }
}

/// The seeds of a property test: `[N]` when `one` (say `TABKEEP_MODEL_SEED`) is set, to replay a
/// failing seed alone; else `0..<N` for `many` (say `TABKEEP_MODEL_SEEDS`) when set, for a longer
/// search; else `0..<defaultCount`.
func propertySeeds(one: String, many: String, defaultCount: Int) -> [Int] {
    let environment = ProcessInfo.processInfo.environment
    if let text = environment[one], let seed = Int(text) { return [seed] }
    return Array(0..<(environment[many].flatMap(Int.init) ?? defaultCount))
}
