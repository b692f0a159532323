import Foundation
import TabKeep
import TabKeepTestSupport

extension TemporaryDirectory {
    /// A new store in `name`, without fsync (tests do not need durability).
    func store(_ name: String) throws -> TabKeepStore {
        try TabKeepStore(path: sub(name), options: .init(durability: .deferred))
    }
}

/// Every stored document as its canonical bytes.
func documentBytes(_ store: TabKeepStore) throws -> [DocumentKey: [UInt8]] {
    var result: [DocumentKey: [UInt8]] = [:]
    try store.forEachDocument { key, document in result[key] = try document.get().encoded() }
    return result
}
