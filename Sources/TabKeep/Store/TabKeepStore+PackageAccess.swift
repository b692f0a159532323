package import LMDBKit

// The handles other targets of this package (TabKeepDump) read in their own transactions; apps
// never see them.
extension TabKeepStore {
    /// Calls `body` with every stored document's key and encoded bytes, in key order, inside the
    /// caller's transaction; `body` returns false to stop. The layout's keys (schema 3's tagged
    /// `profiles` tree, or an old store's `documents`) stay inside the store.
    package func forEachStoredDocument(
        _ txn: borrowing Transaction,
        _ body: (_ key: DocumentKey, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try forEachDocumentRecord(txn, of: nil) { key, value in
            try body(try spaces.documentKey(from: key), value)
        }
    }

    /// The catalogs database: bar ids to encoded ``Catalog``s.
    package var catalogsHandle: Database { catalogsDatabase }
}

// Where records are, for this package's tests and tools that inspect or damage a store on purpose.
extension TabKeepStore {
    /// The database holding documents (schema 3: `profiles`, which also holds dots and versions).
    package var documentsDatabase: Database { documents }

    /// The database holding dots (schema 3: `profiles`).
    package var dotsDatabase: Database { dots }

    /// The database holding version-vector entries (schema 3: `profiles`).
    package var versionsDatabase: Database { versions }

    /// The key of `key`'s document record.
    package func documentRecordKey(_ key: DocumentKey) -> [UInt8] { spaces.documentKey(key) }

    /// The key of `key`'s stored layout record (schema 4; in `documentsDatabase`).
    package func layoutRecordKey(_ key: DocumentKey) -> [UInt8] { spaces.layoutKey(key) }

    /// The prefix of every dot record of `profile` (what follows: replica (8 BE) ‖ sequence (8 BE)).
    package func dotRecordPrefix(_ profile: ProfileID) -> [UInt8] { spaces.dotPrefix(profile) }

    /// Calls `body` with every dot record's key and value (the bar), in key order.
    package func forEachDotRecord(
        _ txn: borrowing Transaction,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try spaces.forEach(txn, Records.Tag.dot, body)
    }

    /// The number of version-vector records (a walk in schema 3's tree).
    package func versionRecordCount(_ txn: borrowing Transaction) throws -> Int {
        var count = 0
        try spaces.forEach(txn, Records.Tag.version) { _, _ in
            count += 1
            return true
        }
        return count
    }
}
