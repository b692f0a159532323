import Foundation
import LMDBKit
public import TabKeep

extension TabKeepStore {
    /// Writes a dump of the store (DESIGN.md §7) to `write`, in chunks of up to ~400 KiB, from one
    /// consistent snapshot: the header, every catalog, every document (of `profiles`, when given)
    /// in key order, the trailer. Memory stays flat in the store's size. Returns the record count.
    ///
    /// `formatVersion` 3 (the default) writes each document straight from its stored bytes; 2
    /// decodes each to write its readable layout too (for tools that read only version 2).
    ///
    /// ```swift
    /// try store.dump { chunk in try output.write(contentsOf: chunk) }
    /// ```
    ///
    /// On a machine of more than one core, version 3 lines are transcoded on two threads, a
    /// batch of documents each, and written in key order: the same bytes and the same error as
    /// one thread writes (chunks may be cut elsewhere). When it throws, everything before the
    /// document or record it names has been handed to `write`.
    @discardableResult
    public func dump(
        profiles: Set<ProfileID>? = nil, milliseconds: UInt64 = HybridLogicalClock.wallMilliseconds(),
        formatVersion: Int = DumpHeader.formatVersion, to write: ([UInt8]) throws -> Void
    ) throws -> Int {
        try dump(
            profiles: profiles, milliseconds: milliseconds, formatVersion: formatVersion,
            threads: Self.dumpThreads, to: write)
    }

    /// Transcoding threads for a version 3 dump: two when the machine has more than one core.
    static var dumpThreads: Int { ProcessInfo.processInfo.activeProcessorCount > 1 ? 2 : 1 }

    /// ``dump(profiles:milliseconds:formatVersion:to:)`` on `threads` transcoding threads (1 or
    /// 2), for the tests that hold the two ways to the same bytes.
    @discardableResult
    package func dump(
        profiles: Set<ProfileID>? = nil, milliseconds: UInt64 = HybridLogicalClock.wallMilliseconds(),
        formatVersion: Int = DumpHeader.formatVersion, threads: Int, to write: ([UInt8]) throws -> Void
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
            if formatVersion >= 3 && threads > 1 {
                try dumpOnTwoThreads(txn, profiles: profiles, into: &writer, write)
                return
            }
            do {
                try forEachStoredDocument(txn) { documentKey, value in
                    if let profiles, !profiles.contains(documentKey.profile) { return true }
                    if formatVersion >= 3 {
                        do throws(DocumentDecodingError) {
                            try writer.writeDocument(
                                key: documentKey, encoded: value.assumingMemoryBound(to: UInt8.self))
                        } catch {
                            throw TabKeepError.corruptDocument(documentKey, error)
                        }
                    } else {
                        let document: TabBarDocument
                        do throws(DocumentDecodingError) {
                            document = try TabBarDocument(decoding: value)
                        } catch {
                            throw TabKeepError.corruptDocument(documentKey, error)
                        }
                        writer.writeDocument(
                            key: documentKey, document: document, catalog: catalogs[documentKey.bar])
                    }
                    if writer.pendingCount >= chunk {
                        do { try write(writer.takeBytes()) } catch { throw DumpWriteFailure(error: error) }
                    }
                    return true
                }
            } catch let failure as DumpWriteFailure {
                throw failure.error
            } catch {
                // What came before the bad document or record is handed over, as on two threads.
                if writer.pendingCount > 0 { try write(writer.takeBytes()) }
                throw error
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
    ///
    /// A `replace` that is not a dry run reads each version 3 document line it can straight into
    /// the bytes the store keeps (`DumpLineTranscoder`), unless `transcoding` is false: the slow
    /// twin, which decodes every line.
    package func restore(
        fromDumpAt path: String, mode: ImportMode, dryRun: Bool = false, maxDrift: Duration = .seconds(300),
        strategy: ReplaceStrategy, transcoding: Bool = true,
        progress: ((_ bytesRead: Int, _ total: Int) -> Void)? = nil
    ) throws -> (summary: DumpSummary, report: ImportReport) {
        // Catalogs come first in a dump and go in before the documents: read them up front.
        let catalogs = try DumpReader.catalogs(path: path)
        let size = try DumpReader.size(path: path)
        var summary: DumpSummary?
        var dumpError: DumpError?
        let report: ImportReport
        do {
            report = try importFed(
                mode: mode, catalogs: catalogs, dryRun: dryRun, sizeHint: size, maxDrift: maxDrift,
                strategy: strategy
            ) { add in
                // Called again when the map must grow: each call reads the whole dump afresh.
                do {
                    summary = nil
                    summary = try DumpReader.readAll(
                        path: path, maxDrift: maxDrift,
                        transcoding: transcoding && mode == .replace && !dryRun
                    ) {
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

extension TabKeepStore {
    /// The documents of a version 3 dump, walked on this thread and copied out a batch at a
    /// time, each batch transcoded on a thread of the pool (at most two at once) while the walk
    /// goes on, then written in key order, a batch a chunk, its checksum combined into the
    /// dump's. A bad document throws after the lines before it are written, as on one thread;
    /// an error of the walk, after the documents walked before it. No transcoding outlives the
    /// call.
    private func dumpOnTwoThreads(
        _ txn: borrowing Transaction, profiles: Set<ProfileID>?, into writer: inout DumpWriter,
        _ write: ([UInt8]) throws -> Void
    ) throws {
        var inFlight: [DumpBatch] = []
        func emit(_ batch: DumpBatch) throws {
            batch.finished.wait()
            if writer.pendingCount > 0 { try write(writer.takeBytes()) }
            if !batch.lines.isEmpty {
                writer.countLines(batch.count, bytes: batch.lines.count, checksum: batch.checksum)
                try write(batch.lines)
            }
            if let (key, error) = batch.failure { throw TabKeepError.corruptDocument(key, error) }
        }
        /// Writes every batch in flight, oldest first; on an error, waits for the rest.
        func drain() throws {
            do {
                while !inFlight.isEmpty { try emit(inFlight.removeFirst()) }
            } catch {
                for batch in inFlight { batch.finished.wait() }
                inFlight = []
                throw error
            }
        }
        var current = DumpBatch()
        do {
            try forEachStoredDocument(txn) { key, value in
                if let profiles, !profiles.contains(key.profile) { return true }
                current.add(key, value)
                if current.documents.count == DumpBatch.size {
                    current.start()
                    inFlight.append(current)
                    current = DumpBatch()
                    if inFlight.count > 2 {
                        do {
                            try emit(inFlight.removeFirst())
                        } catch {
                            throw DumpWriteFailure(error: error)
                        }
                    }
                }
                return true
            }
        } catch let failure as DumpWriteFailure {
            // A bad document or `write`'s error: nothing more is written.
            try drainAfter(failure.error, &inFlight)
        } catch {
            // The walk's error, after what was walked before it.
            if !current.documents.isEmpty {
                current.start()
                inFlight.append(current)
            }
            try drain()
            throw error
        }
        if !current.documents.isEmpty {
            current.start()
            inFlight.append(current)
        }
        try drain()
    }

    /// Waits for the batches still in flight after `error`, then throws it.
    private func drainAfter(_ error: any Error, _ inFlight: inout [DumpBatch]) throws -> Never {
        for batch in inFlight { batch.finished.wait() }
        inFlight = []
        throw error
    }
}

/// An error of a dump's `write`, thrown through the walk of the documents.
private struct DumpWriteFailure: Error {
    let error: any Error
}

/// Stored documents copied out of a dump's read transaction, and their version 3 lines.
// @unchecked: `documents` and `stored` are filled before `start()` and not changed after; the other fields are
// written by the pool's job before it signals `finished`, and read after waiting for it.
private final class DumpBatch: @unchecked Sendable {
    /// Documents a batch: about 350 KiB of lines, written as one chunk.
    static let size = 256

    /// The documents' keys, and where each one's stored bytes are in `stored`.
    private(set) var documents: [(key: DocumentKey, start: Int, count: Int)] = []
    /// The documents' stored bytes, one after another: one buffer a batch, not an array a
    /// document (whose allocations and releases were a twentieth of the walk's thread, perf).
    private var stored: [UInt8] = []
    /// The lines of the documents before `failure`, one after another.
    private(set) var lines: [UInt8] = []
    /// How many lines `lines` holds, and their checksum.
    private(set) var count = 0
    private(set) var checksum = CRC32()
    /// The first document that does not decode, and why.
    private(set) var failure: (DocumentKey, DocumentDecodingError)?
    /// Signalled once the lines are made.
    let finished = DispatchSemaphore(value: 0)

    init() { documents.reserveCapacity(Self.size) }

    /// Copies a document out of the read transaction.
    func add(_ key: DocumentKey, _ bytes: UnsafeRawBufferPointer) {
        documents.append((key, stored.count, bytes.count))
        stored.append(contentsOf: bytes)
    }

    /// Transcodes the documents on a thread of the pool.
    func start() {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            transcode()
            finished.signal()
        }
    }

    private func transcode() {
        var writer = DumpWriter(version: 3)
        stored.withUnsafeBufferPointer { stored in
            for (key, start, count) in documents {
                do throws(DocumentDecodingError) {
                    try writer.writeDocument(
                        key: key, encoded: UnsafeBufferPointer(rebasing: stored[start..<start + count]))
                } catch {
                    failure = (key, error)
                    break
                }
            }
        }
        count = writer.records
        checksum = writer.linesChecksum
        lines = writer.takeBytes()
    }
}
