import LMDBKit
import Foundation
import Synchronization

/// The registered catalog of each bar, decoded once and kept with the record bytes it came from.
///
/// A read still gets the catalog record in its own transaction (another process may register a new
/// catalog at any time), but only compares its bytes with the cached ones instead of decoding and
/// validating the catalog and building its indices again.
///
/// ```swift
/// let catalog = try cache.catalog(for: .main, record: bytes)
/// ```
final class RegisteredCatalogCache: Sendable {
    /// One bar's decoded catalog and the bytes it was decoded from.
    private struct Cached: Sendable {
        let bytes: [UInt8]
        let catalog: Catalog
    }

    private let entries = Mutex<[BarID: Cached]>([:])

    /// The catalog encoded in `record`, the bytes of `bar`'s catalog record: the cached one when the
    /// bytes are unchanged, else decoded (and cached).
    func catalog(for bar: BarID, record: UnsafeRawBufferPointer) throws(DocumentDecodingError) -> Catalog {
        let cached = entries.withLock { $0[bar] }
        if let cached, cached.bytes.count == record.count,
            cached.bytes.withUnsafeBytes({ memcmp($0.baseAddress!, record.baseAddress!, record.count) }) == 0
        {
            return cached.catalog
        }
        let catalog = try Catalog(decoding: record)
        let fresh = Cached(bytes: Array(record), catalog: catalog)
        entries.withLock { $0[bar] = fresh }
        return catalog
    }
}

extension TabKeepStore {
    /// The catalog registered for `bar` as `txn` sees it, from the cache while its bytes are unchanged.
    func registeredCatalog(_ txn: borrowing Transaction, bar: BarID) throws -> Catalog {
        try txn.withValue(catalogsDatabase, key: Array(bar.rawValue.utf8)) {
            bytes throws(TabKeepError) -> Catalog in
            guard let bytes else { throw .noCatalog(bar) }
            do throws(DocumentDecodingError) {
                return try registeredCatalogs.catalog(for: bar, record: bytes)
            } catch {
                throw .corruptCatalog(bar, error)
            }
        }
    }
}
