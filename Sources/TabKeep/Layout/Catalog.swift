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

    /// Everything a catalog holds, in one object: a catalog is copied on every read (out of the
    /// registered catalogs' cache, into a layout), and one object costs one retain where six
    /// fields cost five.
    private let storage: Storage

    /// The tabs, in default order.
    public var tabs: [Tab] { storage.tabs }
    /// Declared renames: old id → new id.
    public var renames: [TabID: TabID] { storage.renames }
    /// Catalog index of each tab.
    var catalogIndexOfTab: [TabID: Int] { storage.catalogIndexOfTab }
    /// Catalog indices in the byte order of their ids (the order documents keep their entries in).
    var catalogIndicesInIDOrder: [Int] { storage.catalogIndicesInIDOrder }
    /// The ids' bytes in that order, for the layout decoder.
    var idTable: CatalogIDIndex { storage.idTable }
    /// A 64-bit hash of ``encoded()`` (FNV-1a), which a stored layout record names the catalog it
    /// was resolved against by: a record is read only with a catalog of the same fingerprint.
    var fingerprint: UInt64 { storage.fingerprint }

    /// A catalog's validated contents and the tables built from them, never changed after `init`.
    private final class Storage: Sendable {
        let tabs: [Tab]
        let renames: [TabID: TabID]
        let catalogIndexOfTab: [TabID: Int]
        let catalogIndicesInIDOrder: [Int]
        let idTable: CatalogIDIndex
        let fingerprint: UInt64

        init(tabs: [Tab], renames: [TabID: TabID], catalogIndexOfTab: [TabID: Int]) {
            self.tabs = tabs
            self.renames = renames
            self.catalogIndexOfTab = catalogIndexOfTab
            let sorted = tabs.indices.sorted { tabs[$0].id < tabs[$1].id }
            self.catalogIndicesInIDOrder = sorted
            self.idTable = CatalogIDIndex(tabs: tabs, sorted: sorted)
            self.fingerprint = Catalog.fingerprint(of: Catalog.encode(tabs: tabs, renames: renames))
        }
    }

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
        storage = Storage(tabs: tabs, renames: renames, catalogIndexOfTab: index)
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
        lhs.storage === rhs.storage || (lhs.tabs == rhs.tabs && lhs.renames == rhs.renames)
    }

    /// Hashes tabs and renames.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(tabs)
        hasher.combine(renames)
    }
}

extension Catalog: CustomReflectable {
    /// Its tabs and renames, as `print` and test failures show a catalog (its tables live in a
    /// private object, which would otherwise be all a description showed).
    public var customMirror: Mirror {
        Mirror(self, children: ["tabs": tabs, "renames": renames], displayStyle: .struct)
    }
}
