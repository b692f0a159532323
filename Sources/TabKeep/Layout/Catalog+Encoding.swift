extension Catalog {
    /// The format byte of encoded catalogs.
    static let formatVersion: UInt8 = 1

    /// Compact, canonical binary: format byte, tabs in order, renames sorted by old id.
    public func encoded() -> [UInt8] { Self.encode(tabs: tabs, renames: renames) }

    /// The encoding of a catalog of `tabs` and `renames` (also what its fingerprint hashes).
    static func encode(tabs: [Tab], renames: [TabID: TabID]) -> [UInt8] {
        var writer = ByteWriter()
        writer.byte(Catalog.formatVersion)
        writer.varint(UInt64(tabs.count))
        for tab in tabs {
            writer.string(tab.id.rawValue)
            writer.byte((tab.customizable ? 1 : 0) | (tab.hidden ? 2 : 0))
            writer.byte(tab.placement.code)
        }
        writer.varint(UInt64(renames.count))
        for old in renames.keys.sorted() {
            writer.string(old.rawValue)
            writer.string(renames[old]!.rawValue)
        }
        return writer.finish()
    }

    /// Decodes `encoded()` output, checking every bound and the catalog rules.
    public init(decoding bytes: some Collection<UInt8>) throws(DocumentDecodingError) {
        let result: Result<Catalog, DocumentDecodingError>
        if let direct = bytes.withContiguousStorageIfAvailable({ Catalog.decode($0) }) {
            result = direct
        } else {
            result = Array(bytes).withUnsafeBufferPointer { Catalog.decode($0) }
        }
        self = try result.get()
    }

    private static func decode(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<Catalog, DocumentDecodingError>
    {
        do throws(DocumentDecodingError) {
            var reader = ByteReader(buffer)
            let format = try reader.byte()
            guard format == formatVersion else {
                return .failure(DocumentDecodingError(offset: 0, reason: "unknown catalog format \(format)"))
            }
            let count = try reader.count(max: maxTabs, "tab count")
            var tabs: [Tab] = []
            tabs.reserveCapacity(min(count, reader.remaining / 4))
            for _ in 0..<count {
                let id = try reader.tab()
                let flags = try reader.byte()
                guard flags <= 3 else { throw reader.fail("unknown tab flags \(flags)") }
                let code = try reader.byte()
                guard let placement = Placement(code: code) else {
                    throw reader.fail("unknown placement \(code)")
                }
                tabs.append(
                    Tab(id, customizable: flags & 1 != 0, hidden: flags & 2 != 0, placement: placement))
            }
            let renameCount = try reader.count(max: maxTabs, "rename count")
            var renames: [TabID: TabID] = [:]
            var previous: TabID?
            for _ in 0..<renameCount {
                let old = try reader.tab()
                if let previous, !(previous < old) { throw reader.fail("renames not in canonical order") }
                previous = old
                renames[old] = try reader.tab()
            }
            guard reader.isAtEnd else { throw reader.fail("trailing bytes") }
            do {
                return .success(try Catalog(tabs: tabs, renames: renames))
            } catch {
                return .failure(DocumentDecodingError(offset: reader.offset, reason: error.description))
            }
        } catch {
            return .failure(error)
        }
    }
}

extension Catalog.Placement {
    /// The byte that stands for the placement in encodings.
    var code: UInt8 {
        switch self {
        case .fixed: 0
        case .movable: 1
        case .default: 2
        case .optional: 3
        }
    }

    init?(code: UInt8) {
        switch code {
        case 0: self = .fixed
        case 1: self = .movable
        case 2: self = .default
        case 3: self = .optional
        default: return nil
        }
    }
}
