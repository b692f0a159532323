import LMDBKit
public import TabKeep

extension TabKeepStore {
    /// Writes a dump of the store (DESIGN.md §7) to `write`, in chunks of about 64 KiB, from one
    /// consistent snapshot: the header, every catalog, every document (of `profiles`, when given)
    /// in key order, the trailer. Memory stays flat in the store's size. Returns the record count.
    ///
    /// `formatVersion` 3 (the default) writes each document straight from its stored bytes; 2
    /// decodes each to write its readable layout too (for tools that read only version 2).
    ///
    /// ```swift
    /// try store.dump { chunk in try output.write(contentsOf: chunk) }
    /// ```
    @discardableResult
    public func dump(
        profiles: Set<ProfileID>? = nil, milliseconds: UInt64 = HybridLogicalClock.wallMilliseconds(),
        formatVersion: Int = DumpHeader.formatVersion, to write: ([UInt8]) throws -> Void
    ) throws -> Int {
        guard formatVersion == 2 || formatVersion == 3 else {
            throw DumpError(line: 0, reason: "dump format version \(formatVersion) is not written; 2 or 3 is")
        }
        var writer = DumpWriter(version: formatVersion)
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
            try forEachStoredDocument(txn) { documentKey, value in
                if let profiles, !profiles.contains(documentKey.profile) { return true }
                if formatVersion >= 3 {
                    do throws(DocumentDecodingError) {
                        try writer.writeDocument(
                            key: documentKey, encoded: value.assumingMemoryBound(to: UInt8.self))
                    } catch {
                        throw TabKeepError.corruptDocument(documentKey, error)
                    }
                    if writer.pendingCount >= chunk { try write(writer.takeBytes()) }
                    return true
                }
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

    /// Restores the dump at `path` in one pass, all or nothing: each line is checked as it is
    /// read and fed to the import, and the first problem (a bad line, a wrong count or CRC in the
    /// trailer, a document stamped more than `maxDrift` ahead of this machine's clock) throws out
    /// of the import, which then leaves the store as it was, so a bad dump changes nothing and
    /// its error names the line. `replace` leaves the store holding exactly the dump's documents
    /// and gives it a fresh replica id; `merge` merges entry by entry, as a sync would. Either
    /// raises each profile's vector only as far as the dump's entries prove. With `dryRun`, only
    /// reports. `progress` gets the bytes read and the file's size.
    ///
    /// A `replace` builds a fresh data file and renames it over the store's, so memory stays
    /// flat in the dump's size; see ``TabKeepStore/importDocuments(mode:catalogs:dryRun:sizeHint:maxDrift:_:)``
    /// for when it runs in one transaction instead.
    public func restore(
        fromDumpAt path: String, mode: ImportMode, dryRun: Bool = false, maxDrift: Duration = .seconds(300),
        progress: ((_ bytesRead: Int, _ total: Int) -> Void)? = nil
    ) throws -> (summary: DumpSummary, report: ImportReport) {
        try restore(
            fromDumpAt: path, mode: mode, dryRun: dryRun, maxDrift: maxDrift, strategy: .automatic,
            progress: progress)
    }

    /// ``restore(fromDumpAt:mode:dryRun:maxDrift:progress:)`` with the way a `replace` writes
    /// chosen, for the tests that hold the two ways to the same outcome.
    package func restore(
        fromDumpAt path: String, mode: ImportMode, dryRun: Bool = false, maxDrift: Duration = .seconds(300),
        strategy: ReplaceStrategy, progress: ((_ bytesRead: Int, _ total: Int) -> Void)? = nil
    ) throws -> (summary: DumpSummary, report: ImportReport) {
        // Catalogs come first in a dump and go in before the documents: read them up front.
        let catalogs = try DumpReader.catalogs(path: path)
        let size = try DumpReader.size(path: path)
        var summary: DumpSummary?
        var dumpError: DumpError?
        let report: ImportReport
        do {
            report = try importDocuments(
                mode: mode, catalogs: catalogs, dryRun: dryRun, sizeHint: size, maxDrift: maxDrift,
                strategy: strategy
            ) { add in
                // Called again when the map must grow: each call reads the whole dump afresh.
                do {
                    summary = nil
                    summary = try DumpReader.readAll(path: path, maxDrift: maxDrift) {
                        key, document, reader in
                        try add(key, document)
                        if reader.records % 1024 == 0 { progress?(reader.bytesRead, size) }
                    }
                } catch let error as DumpError {
                    dumpError = error
                    throw error
                }
            }
        } catch {
            // The transaction was aborted: report the dump's own error, as a check would have.
            if let dumpError { throw dumpError }
            throw error
        }
        guard let summary else {
            throw DumpError(line: 0, reason: "the dump was not read; nothing was written")
        }
        return (summary, report)
    }
}
