import LMDBKit
import Foundation
import Synchronization

/// The registered catalog of each bar, decoded once and kept with the record bytes it came from
/// and the last read snapshot that saw those bytes.
///
/// Another process may register a new catalog at any time, so a read checks the record in its own
/// transaction — but only when its snapshot differs from the one that last checked it: a read
/// transaction's snapshot is the last committed write's id within one opening of the environment,
/// so an equal snapshot is the same committed state and the record cannot have changed (a reopen
/// after a suspend starts a new opening: the file may have been replaced meanwhile). A changed
/// snapshot costs one `get` and one `memcmp`; changed bytes are decoded and validated again. Write transactions never consult the snapshot (their id
/// belongs to an uncommitted state) and never record one.
///
/// ```swift
/// let catalog = try cache.catalog(for: .main, record: bytes, snapshot: nil)
/// ```
final class RegisteredCatalogCache: Sendable {
    /// One bar's decoded catalog, the bytes it was decoded from, and the snapshot that saw them.
    private struct Cached: Sendable {
        let bar: BarID
        let bytes: [UInt8]
        let catalog: Catalog
        var snapshot: Transaction.Snapshot?
    }

    /// Few bars per app: a short list searched by equality hashes nothing.
    private let entries = Mutex<[Cached]>([])

    /// The catalog of `bar` if the read snapshot `snapshot` already checked it.
    func catalog(for bar: BarID, snapshot: Transaction.Snapshot) -> Catalog? {
        entries.withLock { entries in
            entries.first { $0.snapshot == snapshot && $0.bar == bar }?.catalog
        }
    }

    /// The catalog encoded in `record`, the bytes of `bar`'s catalog record: the cached one when the
    /// bytes are unchanged, else decoded (and cached). `snapshot` is the snapshot of the read
    /// transaction that read `record`, or nil in a write transaction.
    func catalog(for bar: BarID, record: UnsafeRawBufferPointer, snapshot: Transaction.Snapshot?)
        throws(DocumentDecodingError)
        -> Catalog
    {
        let cached = entries.withLock { entries -> Catalog? in
            guard let index = entries.firstIndex(where: { $0.bar == bar }) else { return nil }
            let bytes = entries[index].bytes
            guard bytes.count == record.count,
                bytes.withUnsafeBytes({ memcmp($0.baseAddress!, record.baseAddress!, record.count) }) == 0
            else { return nil }
            if let snapshot { entries[index].snapshot = snapshot }
            return entries[index].catalog
        }
        if let cached { return cached }
        let catalog = try Self.decoded(record)
        let fresh = Cached(bar: bar, bytes: Array(record), catalog: catalog, snapshot: snapshot)
        entries.withLock { entries in
            entries.removeAll { $0.bar == bar }
            entries.append(fresh)
        }
        return catalog
    }
}

extension RegisteredCatalogCache {
    /// Catalogs decoded in this process, by record bytes, shared by every store: an app that
    /// opens a store for each launch read (or each extension call) decodes its catalog once, and
    /// later opens compare bytes instead. The newest few are kept.
    private static let decodedRecords = Mutex<[(bytes: [UInt8], catalog: Catalog)]>([])
    private static let decodedLimit = 8

    /// The catalog `record` encodes: decoded here before with the same bytes, or now (and kept).
    static func decoded(_ record: UnsafeRawBufferPointer) throws(DocumentDecodingError) -> Catalog {
        let known = decodedRecords.withLock { records -> Catalog? in
            records.first { entry in
                entry.bytes.count == record.count
                    && entry.bytes.withUnsafeBytes {
                        memcmp($0.baseAddress!, record.baseAddress!, record.count) == 0
                    }
            }?.catalog
        }
        if let known { return known }
        let catalog = try Catalog(decoding: record)
        decodedRecords.withLock { records in
            if records.count == decodedLimit { records.removeFirst() }
            records.append((Array(record), catalog))
        }
        return catalog
    }
}

extension TabKeepStore {
    /// The catalog registered for `bar` as `txn` sees it, from the cache while its bytes are unchanged.
    func registeredCatalog(_ txn: borrowing Transaction, bar: BarID) throws -> Catalog {
        let snapshot = txn.snapshot
        if let snapshot, let catalog = registeredCatalogs.catalog(for: bar, snapshot: snapshot) {
            return catalog
        }
        return try txn.withValue(catalogsDatabase, key: Array(bar.rawValue.utf8)) {
            bytes throws(TabKeepError) -> Catalog in
            guard let bytes else { throw .noCatalog(bar) }
            do throws(DocumentDecodingError) {
                return try registeredCatalogs.catalog(for: bar, record: bytes, snapshot: snapshot)
            } catch {
                throw .corruptCatalog(bar, error)
            }
        }
    }
}
