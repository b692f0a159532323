import Foundation
public import TabKeep

/// Reads a dump strictly, line by line, in flat memory: the header on open, then one record per
/// ``next()``, and at the end the trailer, whose record count and CRC-32 must match.
///
/// ```swift
/// let reader = try DumpReader(path: "store.tkdump")
/// while let record = try reader.next() {
///     if case .document(let key, let document) = record { print(key.profile, document.entries.count) }
/// }
/// ```
///
/// Every problem is a ``DumpError`` naming the line: broken JSON, a duplicate member, an unknown
/// format version, an invalid or over-long id, a duplicate or out-of-order document, a wrong CRC,
/// a missing trailer (a truncated file), anything after the trailer.
public final class DumpReader {
    /// The header line.
    public private(set) var header = DumpHeader(schema: 0, replica: ReplicaID(rawValue: 1), time: "")
    /// The format version of the header (1, 2 or 3).
    public private(set) var version = 0
    /// The number of the last line read (1-based).
    public private(set) var line = 0
    /// Bytes read from the file so far.
    public private(set) var bytesRead = 0

    /// The longest line accepted: far above the largest document a store holds.
    static let maxLineBytes = 32 << 20

    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Where `fill()` reads to; allocated once the file is open, freed by `deinit`.
    private let scratch: UnsafeMutableBufferPointer<UInt8>
    private var start = 0
    private var endOfFile = false
    private var checksum = CRC32()
    /// Catalog and document lines read so far.
    private(set) var records = 0
    /// Document lines read so far.
    var documents = 0
    private var lastCatalog: BarID?
    private var lastDocument: DocumentKey?
    private var finished = false
    /// Whether a version 3 document line is first tried on the fast path
    /// (`DumpDocumentLineScanner`); off, every line takes the slow one (its differential test).
    package var scansDocumentLines = true
    /// Document lines the fast path read.
    package private(set) var scannedDocuments = 0
    /// Document lines ``nextImported()`` transcoded into a store's bytes.
    package private(set) var transcodedDocuments = 0
    private var transcoder = DumpLineTranscoder()

    /// Opens the dump at `path` and reads its header.
    public init(path: String) throws(DumpError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw DumpError(line: 0, reason: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        scratch = .allocate(capacity: 1 << 16)
        guard let first = try readLine() else {
            throw DumpError(line: 1, reason: "the file is empty; expected a tabkeep-dump header")
        }
        header = try parseHeader(first)
        checksum.update(first)
        checksum.update(byte: 0x0A)
    }

    deinit {
        close(descriptor)
        scratch.deallocate()
    }

    /// Reads the whole dump at `path`, checking every line, the record count and the CRC, and
    /// returns its header, catalogs and document count. Memory stays flat in the dump's size
    /// (catalogs are few and small).
    ///
    /// With `maxDrift`, a document stamped further ahead of this machine's clock refuses the dump
    /// (the clock guard of every import), naming its line.
    public static func check(
        path: String, maxDrift: Duration? = nil, progress: ((_ bytes: Int) -> Void)? = nil
    ) throws(DumpError) -> DumpSummary {
        do {
            return try readAll(path: path, maxDrift: maxDrift) { _, _, reader in
                if reader.documents % 1024 == 0 { progress?(reader.bytesRead) }
            }
        } catch let error as DumpError {
            throw error
        } catch {
            throw DumpError(line: 0, reason: "\(error)")  // `document` above throws nothing else
        }
    }

    /// Reads the whole dump at `path` as ``check(path:maxDrift:progress:)`` does, handing each
    /// document to `document` as it is read (with the reader, for its position); returns the
    /// summary once the trailer has matched. Throws the first problem, a ``DumpError``, or what
    /// `document` throws. With `transcoding`, the documents the transcoder takes come in the
    /// bytes a store keeps (``nextImported()``), the rest decoded.
    static func readAll(
        path: String, maxDrift: Duration?, transcoding: Bool = false,
        document: (DocumentKey, ImportedDocument, DumpReader) throws -> Void
    ) throws -> DumpSummary {
        let reader = try DumpReader(path: path)
        var summary = DumpSummary(header: reader.header)
        let now = HybridLogicalClock.wallMilliseconds()
        let limit = maxDrift.map { UInt64(max(0, $0.components.seconds)) * 1_000 }
        while let read = transcoding ? try reader.nextImported() : try reader.next().map(Imported.record) {
            let key: DocumentKey
            let value: ImportedDocument
            switch read {
            case .record(.catalog(let bar, let catalog)):
                summary.catalogs.append((bar, catalog))
                continue
            case .record(.document(let documentKey, let decoded)):
                (key, value) = (documentKey, .decoded(decoded))
            case .encoded(let documentKey, let encoded): (key, value) = (documentKey, .encoded(encoded))
            }
            summary.documents += 1
            reader.documents += 1
            let newest = value.maxStamp.milliseconds
            if let limit, newest > now + limit {
                throw DumpError(
                    line: reader.line,
                    reason:
                        "document for profile \"\(key.profile)\" bar \"\(key.bar)\" is stamped \(newest - now) ms ahead of this machine's clock (the limit is \(limit) ms); nothing was restored"
                )
            }
            try document(key, value, reader)
        }
        summary.bytes = reader.bytesRead
        return summary
    }

    /// The catalogs at the top of the dump at `path` (read up to its first document, each line
    /// checked); the rest of the file is left for ``readAll(path:maxDrift:document:)``.
    static func catalogs(path: String) throws(DumpError) -> [(bar: BarID, catalog: Catalog)] {
        let reader = try DumpReader(path: path)
        var catalogs: [(bar: BarID, catalog: Catalog)] = []
        while let record = try reader.next() {
            guard case .catalog(let bar, let catalog) = record else { break }
            catalogs.append((bar, catalog))
        }
        return catalogs
    }

    /// The size of the file at `path`, in bytes.
    static func size(path: String) throws(DumpError) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw DumpError(line: 0, reason: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        return Int(info.st_size)
    }

    /// The next record, or nil after a trailer that matches. Throws on the first problem.
    public func next() throws(DumpError) -> DumpRecord? {
        guard let bytes = try nextLine() else { return nil }
        return try record(bytes)
    }

    /// What ``nextImported()`` reads: a record, or a document in the bytes a store keeps.
    enum Imported {
        case record(DumpRecord)
        case encoded(key: DocumentKey, document: EncodedDocument)
    }

    /// ``next()``, but a version 3 document line the transcoder takes (`DumpLineTranscoder`) comes
    /// in the bytes a store keeps, not decoded: the same document, the same checks, the same
    /// refusals (any line it does not take is read as ``next()`` reads it).
    func nextImported() throws(DumpError) -> Imported? {
        guard let bytes = try nextLine() else { return nil }
        if version >= 3, scansDocumentLines, let (key, encoded) = transcodedDocument(bytes) {
            checksum.update(bytes)
            checksum.update(byte: 0x0A)
            records += 1
            return .encoded(key: key, document: encoded)
        }
        return try record(bytes).map(Imported.record)
    }

    /// The next line, or nil once the trailer has been read; throws at the end of the file
    /// before the trailer.
    private func nextLine() throws(DumpError) -> [UInt8]? {
        if finished { return nil }
        guard let bytes = try readLine() else {
            throw DumpError(line: line + 1, reason: "missing trailer: the dump is truncated")
        }
        return bytes
    }

    /// The record of the line `bytes` (nil for the trailer, which must end the file).
    private func record(_ bytes: [UInt8]) throws(DumpError) -> DumpRecord? {
        if version >= 3, scansDocumentLines, let record = scannedDocument(bytes) {
            return counted(record, line: bytes)
        }
        let value = try parse(bytes)
        let fields = try DumpFields(
            value, context: "", line: line,
            allowed: ["type", "bar", "tabs", "renames", "profile", "layout", "entries", "records", "crc32"])
        switch try fields.string("type") {
        case "catalog":
            let record = try catalog(value)
            return counted(record, line: bytes)
        case "document":
            let record = try document(value)
            return counted(record, line: bytes)
        case "trailer":
            try trailer(value)
            finished = true
            if try readLine() != nil {
                throw DumpError(line: line, reason: "unexpected data after the trailer")
            }
            return nil
        case let other:
            throw DumpError(line: line, reason: "unknown record type \"\(other)\"")
        }
    }

    /// Counts a catalog or document record and adds its line (and newline) to the checksum.
    private func counted(_ record: DumpRecord, line bytes: [UInt8]) -> DumpRecord {
        checksum.update(bytes)
        checksum.update(byte: 0x0A)
        records += 1
        return record
    }

    // MARK: Lines

    /// The next line without its newline, or nil at the end of the file. A last line without a
    /// newline means the file was cut short.
    private func readLine() throws(DumpError) -> [UInt8]? {
        var searchFrom = start
        while true {
            // memchr instead of a byte-by-byte `firstIndex(of:)` over the slice.
            let from = searchFrom
            let found = buffer.withUnsafeBufferPointer { all -> Int? in
                guard from < all.count, let base = all.baseAddress,
                    let hit = memchr(base + from, 0x0A, all.count - from)
                else { return nil }
                return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
            }
            if let newline = found {
                let lineBytes = Array(buffer[start..<newline])
                start = newline + 1
                line += 1
                return lineBytes
            }
            searchFrom = buffer.count
            if buffer.count - start > Self.maxLineBytes {
                throw DumpError(line: line + 1, reason: "line longer than \(Self.maxLineBytes) bytes")
            }
            if endOfFile {
                if start < buffer.count {
                    line += 1
                    throw DumpError(line: line, reason: "the last line has no newline: the dump is truncated")
                }
                return nil
            }
            if start > 0 {
                buffer.removeSubrange(0..<start)
                searchFrom -= start
                start = 0
            }
            try fill()
        }
    }

    /// Reads the next chunk of the file onto the end of `buffer`, through `scratch`: appending a
    /// buffer is one copy, where growing `buffer` by a sequence of zeros first went element by
    /// element in unoptimized builds (most of the test suite's restore time).
    private func fill() throws(DumpError) {
        var count = 0
        repeat {
            count = read(descriptor, scratch.baseAddress!, scratch.count)
        } while count < 0 && errno == EINTR
        guard count >= 0 else {
            throw DumpError(line: line + 1, reason: "read failed: \(String(cString: strerror(errno)))")
        }
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<count]))
        bytesRead += count
        if count == 0 { endOfFile = true }
    }

    private func parse(_ bytes: [UInt8]) throws(DumpError) -> DumpJSONValue {
        do {
            return try DumpJSONLine(bytes).root
        } catch {
            throw DumpError(line: line, reason: "broken JSON at column \(error.column): \(error.reason)")
        }
    }

    // MARK: Records

    private func parseHeader(_ bytes: [UInt8]) throws(DumpError) -> DumpHeader {
        let value = try parse(bytes)
        let fields = try DumpFields(
            value, context: "header", line: line, allowed: ["format", "version", "schema", "replica", "time"])
        guard fields.member("format")?.string == DumpHeader.formatName else {
            throw DumpError(
                line: line, reason: "not a tabkeep dump: the header lacks \"format\":\"tabkeep-dump\"")
        }
        let version = try fields.unsigned("version")
        guard version >= DumpHeader.oldestReadableVersion && version <= DumpHeader.formatVersion else {
            throw DumpError(
                line: line,
                reason:
                    "unknown format version \(version); this tabkeep reads versions \(DumpHeader.oldestReadableVersion) to \(DumpHeader.formatVersion)"
            )
        }
        self.version = Int(version)
        let schema = try fields.unsigned("schema")
        guard schema >= 1, schema <= TabKeepStore.schemaVersion else {
            throw DumpError(
                line: line,
                reason: "schema \(schema) is not one this tabkeep reads (1–\(TabKeepStore.schemaVersion))")
        }
        let replica = try fields.replica(text: try fields.string("replica"))
        return DumpHeader(schema: Int(schema), replica: replica, time: try fields.string("time"))
    }

    private func catalog(_ value: DumpJSONValue) throws(DumpError) -> DumpRecord {
        let fields = try DumpFields(
            value, context: "catalog", line: line, allowed: ["type", "bar", "tabs", "renames"])
        if lastDocument != nil { throw fields.error("catalogs must come before documents") }
        let bar = try fields.bar("bar")
        if let lastCatalog, !(lastCatalog < bar) {
            throw fields.error(
                lastCatalog == bar ? "duplicate catalog for bar \"\(bar)\"" : "catalogs out of key order")
        }
        guard let items = try fields.value("tabs").elements else {
            throw fields.error("\"tabs\" is not an array")
        }
        var tabs: [Catalog.Tab] = []
        for (index, item) in items.enumerated() {
            let tabFields = try DumpFields(
                item, context: DumpContext("catalog tab \(index + 1)"), line: line,
                allowed: ["id", "placement", "customizable", "hidden"])
            let placementName = try tabFields.string("placement")
            guard let placement = Catalog.Placement(rawValue: placementName) else {
                throw tabFields.error("unknown placement \"\(placementName)\"")
            }
            tabs.append(
                Catalog.Tab(
                    try tabFields.tab("id"), customizable: try tabFields.bool("customizable"),
                    hidden: try tabFields.bool("hidden"), placement: placement))
        }
        guard let renameMembers = try fields.value("renames").members else {
            throw fields.error("\"renames\" is not an object")
        }
        var renames: [TabID: TabID] = [:]
        for (old, new) in renameMembers {
            guard let newText = new.string else {
                throw fields.error("rename of \"\(old)\" is not a string")
            }
            renames[try fields.tab(text: old)] = try fields.tab(text: newText)
        }
        do {
            let catalog = try Catalog(tabs: tabs, renames: renames)
            lastCatalog = bar
            return .catalog(bar: bar, catalog: catalog)
        } catch {
            throw fields.error("invalid catalog: \(error)")
        }
    }

    private func document(_ value: DumpJSONValue) throws(DumpError) -> DumpRecord {
        // Version 3 has no layout, and each entry is a positional array.
        let positional = version >= 3
        let fields = try DumpFields(
            value, context: "document", line: line,
            allowed: positional
                ? ["type", "profile", "bar", "entries"] : ["type", "profile", "bar", "layout", "entries"])
        let key = DocumentKey(profile: try fields.profile("profile"), bar: try fields.bar("bar"))
        let what = "profile \"\(key.profile)\" bar \"\(key.bar)\""
        if let lastDocument, !(lastDocument < key) {
            throw fields.error(
                lastDocument == key
                    ? "duplicate document for \(what)" : "documents out of key order at \(what)")
        }
        if !positional {
            let layout = try fields.value("layout")
            guard layout.isObject || layout.isNull else {
                throw fields.error("\"layout\" is neither an object nor null")
            }
        }
        guard let items = try fields.value("entries").elements else {
            throw fields.error("\"entries\" is not an array")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            let context = DumpContext(what, entry: index + 1)
            entries.append(
                positional
                    ? try DumpEntryReader.positionalEntry(item, context: context, line: line)
                    : try DumpEntryReader.entry(item, context: context, line: line))
        }
        do {
            let document = try TabBarDocument(entries: entries)
            lastDocument = key
            return .document(key: key, document: document)
        } catch {
            throw fields.error("invalid document for \(what): \(error.reason)")
        }
    }

    /// A version 3 document line read on the fast path, or nil when the slow path must read it:
    /// it is not in the writer's exact form, or it is out of key order, or its entries are not a
    /// valid document (the slow path then names the problem).
    private func scannedDocument(_ bytes: [UInt8]) -> DumpRecord? {
        guard let (key, entries) = bytes.withUnsafeBufferPointer({ DumpDocumentLineScanner.document($0) }),
            lastDocument.map({ $0 < key }) ?? true,
            // The scanner checked every id as it read it.
            let document = try? TabBarDocument(entries: entries, identifiersChecked: true)
        else { return nil }
        lastDocument = key
        scannedDocuments += 1
        return .document(key: key, document: document)
    }

    /// A version 3 document line in a store's bytes, or nil when it is not in the writer's exact
    /// form, out of key order, or not a valid document (``next()``'s ways then read it).
    private func transcodedDocument(_ bytes: [UInt8]) -> (DocumentKey, EncodedDocument)? {
        guard let (key, encoded) = bytes.withUnsafeBufferPointer({ transcoder.document($0) }),
            lastDocument.map({ $0 < key }) ?? true
        else { return nil }
        lastDocument = key
        transcodedDocuments += 1
        return (key, encoded)
    }

    private func trailer(_ value: DumpJSONValue) throws(DumpError) {
        let fields = try DumpFields(
            value, context: "trailer", line: line, allowed: ["type", "records", "crc32"])
        let count = try fields.unsigned("records")
        guard count == UInt64(records) else {
            throw fields.error("the trailer counts \(count) records but the dump holds \(records)")
        }
        let expected = try fields.string("crc32")
        let actual = checksum.value
        let actualText = (0..<8).map { String(actual >> (28 - 4 * $0) & 0xF, radix: 16) }.joined()
        guard expected == actualText else {
            throw fields.error("wrong CRC-32: the trailer says \(expected), the content has \(actualText)")
        }
    }
}

/// What a whole, checked dump holds.
public struct DumpSummary: Sendable {
    /// Its header.
    public var header: DumpHeader
    /// Its catalogs, by bar, in key order.
    public var catalogs: [(bar: BarID, catalog: Catalog)] = []
    /// How many documents it holds.
    public var documents = 0
    /// Its size in bytes.
    public var bytes = 0

    /// A summary of a dump with `header` and nothing else yet.
    public init(header: DumpHeader) {
        self.header = header
    }
}
