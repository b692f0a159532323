public import TabKeep

/// Writes the dump format of DESIGN.md §7, one JSON line at a time, by hand: fast, deterministic.
///
/// ```swift
/// var writer = DumpWriter()
/// writer.writeHeader(DumpHeader(schema: 1, replica: store.replicaID, time: DumpHeader.isoTime(milliseconds: now)))
/// writer.writeCatalog(bar: .main, catalog: catalog)
/// writer.writeDocument(key: key, document: document, catalog: catalog)
/// writer.writeTrailer()
/// output.write(writer.takeBytes())
/// ```
///
/// Lines are: the header; one per catalog; one per document (every entry with stamp, origin and
/// dot; in version 2 also its readable layout, when a catalog is given); the trailer with the
/// record count and the CRC-32 of every byte before the trailer line. The caller writes records in
/// key order.
///
/// Version 3 (the default) writes each entry as a positional array and can write a document
/// straight from its stored bytes (``writeDocument(key:encoded:)``); version 2 writes entries as
/// objects with a member per field, and the layout.
public struct DumpWriter: Sendable {
    private var output = DumpJSONOutput()
    private var checksum = CRC32()
    private var transcoder = DumpTranscoder()
    /// Catalog and document lines written so far.
    public private(set) var records = 0
    /// The format version written: 2 or 3.
    public let version: Int

    /// A writer with nothing written, of format `version` (2 or 3; the newest by default).
    public init(version: Int = DumpHeader.formatVersion) {
        precondition(version == 2 || version == 3, "DumpWriter writes format versions 2 and 3")
        self.version = version
    }

    /// Bytes written but not yet taken.
    public var pendingCount: Int { output.count }

    /// Hands over the bytes written since the last call (the checksum has seen them).
    public mutating func takeBytes() -> [UInt8] {
        output.takeBytes()
    }

    private mutating func endLine(from start: Int) {
        output.raw("}\n")
        output.withBytes(from: start) { checksum.update($0) }
    }

    /// Writes the header line.
    public mutating func writeHeader(_ header: DumpHeader) {
        let start = output.begin()
        output.raw("{")
        output.name("format")
        output.string(DumpHeader.formatName)
        output.raw(",")
        output.name("version")
        output.integer(version)
        output.raw(",")
        output.name("schema")
        output.integer(header.schema)
        output.raw(",")
        output.name("replica")
        output.replica(header.replica)
        output.raw(",")
        output.name("time")
        output.string(header.time)
        endLine(from: start)
    }

    /// Writes one catalog line.
    public mutating func writeCatalog(bar: BarID, catalog: Catalog) {
        let start = output.begin()
        output.raw("{\"type\":\"catalog\",")
        output.name("bar")
        output.string(bar.rawValue)
        output.raw(",")
        output.name("tabs")
        output.raw("[")
        for (index, tab) in catalog.tabs.enumerated() {
            if index > 0 { output.raw(",") }
            output.raw("{")
            output.name("id")
            output.string(tab.id.rawValue)
            output.raw(",")
            output.name("placement")
            output.string(tab.placement.rawValue)
            output.raw(",")
            output.name("customizable")
            output.bool(tab.customizable)
            output.raw(",")
            output.name("hidden")
            output.bool(tab.hidden)
            output.raw("}")
        }
        output.raw("],")
        output.name("renames")
        output.raw("{")
        for (index, old) in catalog.renames.keys.sorted().enumerated() {
            if index > 0 { output.raw(",") }
            output.string(old.rawValue)
            output.raw(":")
            output.string(catalog.renames[old]!.rawValue)
        }
        output.raw("}")
        endLine(from: start)
        records += 1
    }

    /// Writes one document line: every entry, and in version 2 the layout resolved against
    /// `catalog` (null without one; version 3 has no layout and ignores `catalog`).
    public mutating func writeDocument(key: DocumentKey, document: TabBarDocument, catalog: Catalog?) {
        let start = output.begin()
        writeDocumentStart(key)
        if version >= 3 {
            writeEntries(document, positional: true)
            endLine(from: start)
            records += 1
            return
        }
        output.name("layout")
        if let catalog {
            writeLayout(document.layout(catalog: catalog))
        } else {
            output.raw("null")
        }
        output.raw(",")
        output.name("entries")
        writeEntries(document, positional: false)
        endLine(from: start)
        records += 1
    }

    /// The document's entries as a JSON array: positional arrays (version 3) or objects.
    private mutating func writeEntries(_ document: TabBarDocument, positional: Bool) {
        output.raw("[")
        for (index, entry) in document.entries.enumerated() {
            if index > 0 { output.raw(",") }
            if positional { writePositionalEntry(entry) } else { writeEntry(entry) }
        }
        output.raw("]")
    }

    /// Writes one version 3 document line straight from the document's stored bytes (the binary
    /// format of `TabBarDocument.encoded()`), without decoding them: the same line as
    /// ``writeDocument(key:document:catalog:)`` of the decoded document. Bytes that do not decode
    /// throw the decoder's error and write nothing.
    public mutating func writeDocument(key: DocumentKey, encoded: UnsafeBufferPointer<UInt8>)
        throws(DocumentDecodingError)
    {
        precondition(version >= 3, "a version 2 line holds the layout: decode the document")
        let start = output.begin()
        writeDocumentStart(key)
        if transcoder.transcode(encoded, &output) {
            endLine(from: start)
            records += 1
            return
        }
        // The slow twin names the problem; were the transcoder stricter than the decoder, it
        // also writes the line.
        output.truncate(to: start)
        writeDocument(key: key, document: try TabBarDocument(decoding: encoded), catalog: nil)
    }

    /// Counts lines another writer of this version wrote and handed over itself: `count` lines,
    /// `bytes` long, of checksum `checksum`, as if written here.
    package mutating func countLines(_ count: Int, bytes: Int, checksum other: CRC32) {
        checksum.append(other, count: bytes)
        records += count
    }

    /// The checksum of the lines written so far.
    package var linesChecksum: CRC32 { checksum }

    /// `{"type":"document","profile":P,"bar":B,` and, in version 3, `"entries":`.
    private mutating func writeDocumentStart(_ key: DocumentKey) {
        output.raw("{\"type\":\"document\",")
        output.name("profile")
        output.string(key.profile.rawValue)
        output.raw(",")
        output.name("bar")
        output.string(key.bar.rawValue)
        output.raw(",")
        if version >= 3 { output.name("entries") }
    }

    /// Writes the trailer line: the record count and the CRC-32 of everything before it.
    public mutating func writeTrailer() {
        output.makeUnique()
        output.raw("{\"type\":\"trailer\",")
        output.name("records")
        output.integer(records)
        output.raw(",")
        output.name("crc32")
        let crc = checksum.value
        output.hexString((0..<4).map { UInt8(truncatingIfNeeded: crc >> (24 - 8 * $0)) })
        output.raw("}\n")
    }

    private mutating func writeLayout(_ layout: Layout) {
        output.raw("{")
        // A stored layout builds each property when read: each is read once here.
        let order = layout.order
        output.name("order")
        output.stringArray(order.map(\.rawValue))
        output.raw(",")
        output.name("customizable")
        output.stringArray(layout.customizable.map(\.rawValue))
        output.raw(",")
        output.name("hidden")
        output.stringArray(layout.hidden.map(\.rawValue))
        output.raw(",")
        output.name("selected")
        switch layout.selection {
        case .tab(let tab): output.string(tab.rawValue)
        case .more: output.string("more")
        case .none: output.raw("null")
        }
        output.raw(",")
        output.name("badges")
        output.raw("{")
        var first = true
        let badges = layout.badges
        for tab in order {
            guard let count = badges[tab] else { continue }
            if !first { output.raw(",") }
            first = false
            output.string(tab.rawValue)
            output.raw(":")
            output.integer(count)
        }
        output.raw("},")
        output.name("badgeTexts")
        output.raw("{")
        first = true
        let texts = layout.badgeTexts
        for tab in order {
            guard let text = texts[tab] else { continue }
            if !first { output.raw(",") }
            first = false
            output.string(tab.rawValue)
            output.raw(":")
            output.string(text)
        }
        output.raw("}}")
    }

    private mutating func writeEntry(_ entry: Entry) {
        output.raw("{")
        output.name("kind")
        output.raw("\"")
        output.raw(DumpEntryKind.name(of: entry.key))
        output.raw("\"")
        if let tab = entry.key.tab {
            output.raw(",")
            output.name("tab")
            output.string(tab.rawValue)
        }
        if case .badgeIncrements(_, let replica) = entry.key {
            output.raw(",")
            output.name("replica")
            output.replica(replica)
        }
        output.raw(",")
        if entry.value == .removed {
            output.name("removed")
            output.raw("true")
        } else {
            output.name("value")
            writeValue(entry.value)
        }
        output.raw(",")
        output.name("stamp")
        output.integer(entry.stamp.rawValue)
        output.raw(",")
        output.name("origin")
        output.replica(entry.origin)
        output.raw(",")
        output.name("dot")
        output.dot(entry.dot)
        output.raw("}")
    }

    /// A version 3 entry: `[KIND,(TAB,)(REPLICA,)STAMP,ORIGIN,DOT(,VALUE)]`, the value left out
    /// for a tombstone.
    private mutating func writePositionalEntry(_ entry: Entry) {
        output.raw("[\"")
        output.raw(DumpEntryKind.name(of: entry.key))
        output.raw("\"")
        if let tab = entry.key.tab {
            output.raw(",")
            output.string(tab.rawValue)
        }
        if case .badgeIncrements(_, let replica) = entry.key {
            output.raw(",")
            output.replica(replica)
        }
        output.raw(",")
        output.integer(entry.stamp.rawValue)
        output.raw(",")
        output.replica(entry.origin)
        output.raw(",")
        output.dot(entry.dot)
        if entry.value != .removed {
            output.raw(",")
            writeValue(entry.value)
        }
        output.raw("]")
    }

    private mutating func writeVector(_ entries: [(ReplicaID, Int64)]) {
        output.raw("{")
        for (index, (replica, value)) in entries.enumerated() {
            if index > 0 { output.raw(",") }
            output.replica(replica)
            output.raw(":")
            output.integer(value)
        }
        output.raw("}")
    }

    private mutating func writeValue(_ value: Entry.Value) {
        switch value {
        case .position(let key): output.hexString(key)
        case .place(let place):
            output.raw("{")
            output.name("after")
            if let after = place.after { output.string(after.rawValue) } else { output.raw("null") }
            output.raw(",")
            output.name("next")
            if let next = place.next { output.string(next.rawValue) } else { output.raw("null") }
            output.raw(",")
            output.name("key")
            output.hexString(place.key)
            output.raw("}")
        case .flag(let flag): output.bool(flag)
        case .selection(.tab(let tab)):
            output.raw("{")
            output.name("tab")
            output.string(tab.rawValue)
            output.raw("}")
        case .selection(.more): output.raw("\"more\"")
        case .selection(.none): output.raw("\"none\"")
        case .text(let text):
            if let text { output.string(text) } else { output.raw("null") }
        case .badgeReset(let count, let seen, let sequences):
            output.raw("{")
            output.name("count")
            output.integer(count)
            output.raw(",")
            output.name("seen")
            writeVector(seen.keys.sorted().map { ($0, seen[$0]!) })
            if !sequences.isEmpty {
                output.raw(",")
                output.name("sequences")
                writeVector(sequences.keys.sorted().map { ($0, Int64(bitPattern: sequences[$0]!)) })
            }
            output.raw("}")
        case .badgeTotal(let total): output.integer(total)
        case .context(let vector, let badges):
            if !badges.isEmpty {
                output.raw("{")
                output.name("context")
            }
            output.raw("{")
            for (index, replica) in vector.replicas.enumerated() {
                if index > 0 { output.raw(",") }
                output.replica(replica)
                output.raw(":")
                output.integer(vector[replica])
            }
            output.raw("}")
            if !badges.isEmpty {
                output.raw(",")
                output.name("badges")
                output.raw("[")
                for (index, mark) in badges.enumerated() {
                    if index > 0 { output.raw(",") }
                    output.raw("{")
                    output.name("tab")
                    output.string(mark.tab.rawValue)
                    output.raw(",")
                    output.name("replica")
                    output.replica(mark.replica)
                    output.raw(",")
                    output.name("total")
                    output.integer(mark.total)
                    output.raw(",")
                    output.name("sequence")
                    output.integer(mark.sequence)
                    output.raw("}")
                }
                output.raw("]}")
            }
        case .removed: output.raw("null")
        }
    }
}
