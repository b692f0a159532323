/// A catalog's tab ids as UTF-8 bytes in byte order, each with its catalog index, and the tables
/// the layout decoder resolves an order with: what ``LayoutDecoder`` matches a document's tab id
/// bytes against, so it makes no `String` and hashes no id.
///
/// Built once per catalog (in `Catalog.init`), so a launch read pays nothing for it; a class, so a
/// read that holds it retains one object, not each of its arrays.
final class CatalogIDIndex: Sendable {
    /// Every id's bytes, one after another, in byte order of the ids.
    let bytes: [UInt8]
    /// Where each id starts in `bytes`, then where the last one ends (one more element than ids).
    let starts: [Int]
    /// The catalog index of each id, in the same order.
    let indices: [Int]
    /// The place of each catalog tab's id in byte order, by catalog index (the inverse of `indices`).
    let ranks: [Int]
    /// The catalog indices of the tabs that are not fixed, in catalog order: the slots of the order.
    let movable: [Int]
    /// The slot of each catalog tab (its place in `movable`), or -1 for a fixed tab.
    let slots: [Int]
    /// Each id's ``IdentifierRules/prefixKey(_:)``, in byte order of the ids.
    let prefixKeys: [UInt64]
    /// Each catalog tab's id, in catalog order.
    let tabIDs: [TabID]
    /// Each catalog tab's traits, in catalog order (see ``Trait``): what the resolver asks of a tab
    /// without copying its `Catalog.Tab`.
    let traits: [Trait]

    /// What the resolver asks of one catalog tab, one bit each.
    struct Trait: OptionSet {
        let rawValue: UInt8
        /// The tab is fixed: never customizable, never hidden, not in a slot.
        static let fixed = Trait(rawValue: 1)
        /// A hidden flag applies (placement `.default` or `.optional`).
        static let hideable = Trait(rawValue: 2)
        /// Hidden when no flag says otherwise.
        static let hiddenByDefault = Trait(rawValue: 4)
        /// Customizable when no flag says otherwise.
        static let customizableByDefault = Trait(rawValue: 8)
    }

    /// The index of `tabs`, whose indices in byte order of their ids are `sorted`.
    init(tabs: [Catalog.Tab], sorted: [Int]) {
        var bytes: [UInt8] = []
        var starts: [Int] = [0]
        starts.reserveCapacity(sorted.count + 1)
        var ranks = [Int](repeating: 0, count: tabs.count)
        for (rank, index) in sorted.enumerated() {
            bytes.append(contentsOf: tabs[index].id.rawValue.utf8)
            starts.append(bytes.count)
            ranks[index] = rank
        }
        var movable: [Int] = []
        var slots = [Int](repeating: -1, count: tabs.count)
        for (index, tab) in tabs.enumerated() where tab.placement != .fixed {
            slots[index] = movable.count
            movable.append(index)
        }
        self.tabIDs = tabs.map(\.id)
        self.traits = tabs.map { tab in
            var traits: Trait = []
            if tab.placement == .fixed { traits.insert(.fixed) }
            if tab.placement == .default || tab.placement == .optional { traits.insert(.hideable) }
            if tab.hiddenByDefault { traits.insert(.hiddenByDefault) }
            if tab.customizableByDefault { traits.insert(.customizableByDefault) }
            return traits
        }
        self.prefixKeys = bytes.withUnsafeBufferPointer { ids in
            (0..<sorted.count).map { rank in
                IdentifierRules.prefixKey(UnsafeBufferPointer(rebasing: ids[starts[rank]..<starts[rank + 1]]))
            }
        }
        self.bytes = bytes
        self.starts = starts
        self.indices = sorted
        self.ranks = ranks
        self.movable = movable
        self.slots = slots
    }

    /// The number of ids.
    var count: Int { indices.count }

    /// The bytes of the id at `rank` in byte order, within `ids` (`bytes`' storage).
    @inline(__always)
    func id(at rank: Int, in ids: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: ids[starts[rank]..<starts[rank + 1]])
    }

    /// The order of the id at `rank` against `tab`, whose ``IdentifierRules/prefixKey(_:)`` is `key`.
    @inline(__always)
    func compare(
        rank: Int, in ids: UnsafeBufferPointer<UInt8>, with tab: UnsafeBufferPointer<UInt8>, key: UInt64
    )
        -> Int
    {
        let rankKey = prefixKeys[rank]
        if rankKey != key { return rankKey < key ? -1 : 1 }
        return IdentifierRules.compare(id(at: rank, in: ids), key: rankKey, tab, key: key)
    }

    /// The catalog index of the tab whose id is `tab`, by binary search, or nil.
    func catalogIndex(of tab: UnsafeBufferPointer<UInt8>, in ids: UnsafeBufferPointer<UInt8>) -> Int? {
        let key = IdentifierRules.prefixKey(tab)
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            let order = compare(rank: middle, in: ids, with: tab, key: key)
            if order == 0 { return indices[middle] }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return nil
    }
}
