/// Why a profile's bar looks the way it does: for every tab of the resolved layout, where its place,
/// flags and badge come from (which device wrote each, and when), the selection, and the clears the
/// document holds. Support's answer to "my tabs moved, I didn't do that".
///
/// ```swift
/// guard let explanation = try store.explain(try ProfileID("alice")) else { return }  // nothing stored
/// for tab in explanation.tabs where tab.index != nil { print(tab.tab, tab.place) }
/// print(explanation.selection.provenance?.origin as Any)
/// ```
public struct BarExplanation: Hashable, Sendable {
    /// The profile explained.
    public var profile: ProfileID
    /// The bar explained.
    public var bar: BarID
    /// The replica id of the store the explanation was read from ("this device").
    public var thisDevice: ReplicaID
    /// The catalog the document was resolved against.
    public var catalog: Catalog
    /// The layout the user sees (the same as `TabKeepStore.layout`).
    public var layout: Layout
    /// Every catalog tab: the shown ones in `layout.order`, then the hidden ones in `layout.hidden`.
    public var tabs: [TabExplanation]
    /// The selection.
    public var selection: SelectionExplanation
    /// The clears the document holds (at most one today: merged clears keep the latest's author).
    public var clears: [ClearExplanation]
    /// Tabs the document holds entries for that the catalog does not offer (renames read through):
    /// kept, not shown, and back if the catalog offers them again. Sorted.
    public var notInCatalog: [TabID]

    /// The explanation of `tab` (its current id), if the catalog offers it.
    public func tab(_ tab: TabID) -> TabExplanation? {
        tabs.first { $0.tab == tab }
    }

    /// Every replica named anywhere in the explanation, this device first, then by id.
    public var replicas: [ReplicaID] {
        var seen = Set<ReplicaID>()
        func add(_ provenance: Provenance?) {
            if let provenance { seen.insert(provenance.origin) }
        }
        for tab in tabs {
            switch tab.place {
            case .moved(let provenance, _), .pinned(let provenance): add(provenance)
            case .fixed, .catalogDefault: break
            }
            for flag in [tab.customizable, tab.hidden] {
                if case .edited(let provenance) = flag.source { add(provenance) }
            }
            add(tab.badge?.reset?.provenance)
            for increment in tab.badge?.increments ?? [] {
                seen.insert(increment.replica)
                add(increment.provenance)
            }
            add(tab.badgeText?.provenance)
        }
        add(selection.provenance)
        for clear in clears {
            add(clear.provenance)
            seen.formUnion(clear.covered.replicas)
        }
        seen.remove(thisDevice)
        return [thisDevice] + seen.sorted()
    }
}
