import Foundation
import TabKeep

/// A fresh directory for one test, removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.path + "/tabkeep-s3-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func sub(_ name: String) -> String { path + "/" + name }

    /// A new store in `name`, without fsync (tests do not need durability).
    func store(_ name: String) throws -> TabKeepStore {
        try TabKeepStore(path: sub(name), options: .init(durability: .deferred))
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

func tab(_ name: String) -> TabID { try! TabID(name) }
func profile(_ name: String) -> ProfileID { try! ProfileID(name) }

/// Seven default tabs, a…g.
let sevenTabs = try! Catalog(["a", "b", "c", "d", "e", "f", "g"].map(tab))

/// Every stored document as its canonical bytes.
func documentBytes(_ store: TabKeepStore) throws -> [DocumentKey: [UInt8]] {
    var result: [DocumentKey: [UInt8]] = [:]
    try store.forEachDocument { key, document in result[key] = try document.get().encoded() }
    return result
}
