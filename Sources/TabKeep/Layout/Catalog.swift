/// The tabs an app offers now, in default order, with their defaults and declared renames.
///
/// ```swift
/// let catalog = try Catalog(
///     tabs: [
///         Catalog.Tab(try TabID("home"), placement: .fixed),
///         Catalog.Tab(try TabID("messages")),
///         Catalog.Tab(try TabID("labs"), placement: .optional),
///     ],
///     renames: [try TabID("chat"): try TabID("messages")])
/// ```
public struct Catalog: Hashable, Sendable {
    /// How a tab may be arranged.
    public enum Placement: String, Hashable, Sendable, CaseIterable {
        /// Stays at its catalog index; never moved, never customizable, never hidden.
        case fixed
        /// Can be reordered, never hidden.
        case movable
        /// Can be reordered and hidden; shown by default.
        case `default`
        /// Can be reordered and hidden; hidden by default.
        case optional
    }

    /// One tab the app offers.
    public struct Tab: Hashable, Sendable {
        /// Its stable id.
        public var id: TabID
        /// Whether it is customizable by default (never for fixed tabs).
        public var customizable: Bool
        /// Whether it is hidden by default (always for optional tabs; never for fixed or movable).
        public var hidden: Bool
        /// How it may be arranged.
        public var placement: Placement

        /// A tab with its defaults.
        public init(
            _ id: TabID, customizable: Bool = true, hidden: Bool = false, placement: Placement = .default
        ) {
            self.id = id
            self.customizable = customizable
            self.hidden = hidden
            self.placement = placement
        }

        /// Whether it is hidden when the document says nothing.
        var hiddenByDefault: Bool {
            switch placement {
            case .fixed, .movable: false
            case .default: hidden
            case .optional: true
            }
        }

        /// Whether it is customizable when the document says nothing.
        var customizableByDefault: Bool { placement == .fixed ? false : customizable }
    }

    /// The tabs, in default order.
    public private(set) var tabs: [Tab]
    /// Declared renames: old id → new id.
    public private(set) var renames: [TabID: TabID]
    /// Catalog index of each tab.
    let catalogIndexOfTab: [TabID: Int]
    /// Catalog indices in the byte order of their ids (the order documents keep their entries in).
    let catalogIndicesInIDOrder: [Int]
    /// The ids' bytes in that order, for the layout decoder.
    let idTable: CatalogIDIndex
    /// A 64-bit hash of ``encoded()`` (FNV-1a), which a stored layout record names the catalog it
    /// was resolved against by: a record is read only with a catalog of the same fingerprint.
    let fingerprint: UInt64

    /// The most tabs a bar holds.
    public static let maxTabs = 256

    /// Validates: no duplicate ids, at most 256 tabs and renames, no rename cycles, no renamed tab listed.
    public init(tabs: [Tab], renames: [TabID: TabID] = [:]) throws(CatalogError) {
        guard tabs.count <= Catalog.maxTabs else { throw .tooManyTabs(tabs.count) }
        guard renames.count <= Catalog.maxTabs else { throw .tooManyRenames(renames.count) }
        var index: [TabID: Int] = [:]
        index.reserveCapacity(tabs.count)
        for (position, tab) in tabs.enumerated() {
            guard index.updateValue(position, forKey: tab.id) == nil else { throw .duplicateTab(tab.id) }
        }
        for old in renames.keys.sorted() {
            if index[old] != nil { throw .renamedTabStillListed(old) }
            var current = old
            var steps = 0
            while let next = renames[current] {
                steps += 1
                if next == old || steps > renames.count { throw .renameCycle(old) }
                current = next
            }
        }
        self.tabs = tabs
        self.renames = renames
        self.catalogIndexOfTab = index
        self.catalogIndicesInIDOrder = tabs.indices.sorted { tabs[$0].id < tabs[$1].id }
        self.idTable = CatalogIDIndex(tabs: tabs, sorted: catalogIndicesInIDOrder)
        self.fingerprint = Self.fingerprint(of: Self.encode(tabs: tabs, renames: renames))
    }

    /// FNV-1a (64-bit) of `bytes`: deterministic across processes and builds, unlike `Hasher`.
    static func fingerprint(of bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// A catalog of `.default` tabs.
    public init(_ ids: [TabID]) throws(CatalogError) {
        try self.init(tabs: ids.map { Tab($0) })
    }

    /// The catalog entry of `id`, if listed.
    func tab(_ id: TabID) -> Tab? {
        catalogIndexOfTab[id].map { tabs[$0] }
    }

    /// The id an (old or current) id reads as now, following renames.
    func current(_ id: TabID) -> TabID {
        if renames.isEmpty { return id }
        var result = id
        var steps = 0
        while let next = renames[result], steps <= renames.count {
            result = next
            steps += 1
        }
        return result
    }

    /// Equal when tabs and renames are equal.
    public static func == (lhs: Catalog, rhs: Catalog) -> Bool {
        lhs.tabs == rhs.tabs && lhs.renames == rhs.renames
    }

    /// Hashes tabs and renames.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(tabs)
        hasher.combine(renames)
    }
}
