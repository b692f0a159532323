import LMDBKit
public import TabKeep

extension TabKeepStore {
    /// Writes a dump of the store (DESIGN.md §7) to `write`, in chunks of about 64 KiB, from one
    /// consistent snapshot: the header, every catalog, every document (of `profiles`, when given)
    /// in key order, the trailer. Memory stays flat in the store's size. Returns the record count.
    ///
    /// ```swift
    /// try store.dump { chunk in try output.write(contentsOf: chunk) }
    /// ```
    @discardableResult
    public func dump(
        profiles: Set<ProfileID>? = nil, milliseconds: UInt64 = HybridLogicalClock.wallMilliseconds(),
        to write: ([UInt8]) throws -> Void
    ) throws -> Int {
        var writer = DumpWriter()
        writer.writeHeader(
            DumpHeader(
                schema: TabKeepStore.schemaVersion, replica: replicaID,
                time: DumpHeader.isoTime(milliseconds: milliseconds)))
        let chunk = 64 << 10
        try environment.read { txn in
            var catalogs: [BarID: Catalog] = [:]
            try txn.forEach(catalogsHandle) { key, value in
                let bar = try BarID(String(decoding: key, as: UTF8.self))
                do throws(DocumentDecodingError) {
                    catalogs[bar] = try Catalog(decoding: value)
                } catch {
                    throw TabKeepError.corruptCatalog(bar, error)
                }
                writer.writeCatalog(bar: bar, catalog: catalogs[bar]!)
                return true
            }
            if writer.pendingCount >= chunk { try write(writer.takeBytes()) }
            try txn.forEach(documentsHandle) { key, value in
                let documentKey = try DocumentKey(bytes: key)
                if let profiles, !profiles.contains(documentKey.profile) { return true }
                let document: TabBarDocument
                do throws(DocumentDecodingError) {
                    document = try TabBarDocument(decoding: value)
                } catch {
                    throw TabKeepError.corruptDocument(documentKey, error)
                }
                writer.writeDocument(key: documentKey, document: document, catalog: catalogs[documentKey.bar])
                if writer.pendingCount >= chunk { try write(writer.takeBytes()) }
                return true
            }
        }
        writer.writeTrailer()
        try write(writer.takeBytes())
        return writer.records
    }

    /// Restores the dump at `path`: reads and checks all of it first (a bad dump, or one stamped more
    /// than `maxDrift` ahead of this machine's clock, changes nothing and names its line), then
    /// reads it again into one write transaction. `replace` leaves the store holding exactly the
    /// dump's documents and gives it a fresh replica id; `merge` merges entry by entry, as a sync
    /// would. Either raises each profile's vector only as far as the dump's entries prove. With
    /// `dryRun`, only reports. `progress` gets the bytes read and the total, twice over (check,
    /// then write).
    public func restore(
        fromDumpAt path: String, mode: ImportMode, dryRun: Bool = false, maxDrift: Duration = .seconds(300),
        progress: ((_ bytesRead: Int, _ total: Int) -> Void)? = nil
    ) throws -> (summary: DumpSummary, report: ImportReport) {
        let summary = try DumpReader.check(path: path, maxDrift: maxDrift) { progress?($0, 0) }
        let report = try importDocuments(
            mode: mode, catalogs: summary.catalogs, dryRun: dryRun, sizeHint: summary.bytes,
            maxDrift: maxDrift
        ) { add in
            let reader = try DumpReader(path: path)
            var documents = 0
            while let record = try reader.next() {
                guard case .document(let key, let document) = record else { continue }
                try add(key, document)
                documents += 1
                if documents % 1024 == 0 { progress?(reader.bytesRead, summary.bytes) }
            }
            guard documents == summary.documents, reader.header == summary.header else {
                throw DumpError(
                    line: 0, reason: "the dump changed while it was restored; nothing was written")
            }
        }
        return (summary, report)
    }
}
