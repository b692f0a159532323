import TabKeep

/// The data every contender holds: N profiles, each with a realistic ten-tab document (about
/// 1 KiB encoded), the same bytes for TabKeep, raw LMDB, SQLite and UserDefaults.
///
/// Documents are made from a few templates built with the real edit API; each profile's copy
/// gets its own dots (sequence numbers), so the store's `dots` index is as large as a real one.
struct Fixture {
    let catalog: Catalog
    let tabs: [TabID]
    /// The replica that "made" the seeded documents (not any store's own replica).
    let seedReplica = ReplicaID(rawValue: 0x5EED_5EED_5EED_5EED)
    private let templates: [TabBarDocument]
    /// Dots per profile: templates use fewer, so sequences never collide across profiles.
    static let dotsPerProfile: UInt64 = 64

    init() throws {
        let names = [
            "home", "search", "inbox", "library", "profile", "settings", "help", "downloads", "friends",
            "store",
        ]
        tabs = try names.map { name throws in try TabID(name) }
        let catalog = try Catalog(tabs)
        self.catalog = catalog
        let tabs = self.tabs
        let seedReplica = self.seedReplica
        var made: [TabBarDocument] = []
        for variant in 0..<16 {
            var document = TabBarDocument()
            var replica = Replica(id: seedReplica)
            func apply(_ edit: TabBarEdit) throws {
                try document.apply(edit, catalog: catalog, by: &replica)
            }
            var order = tabs
            order.swapAt(variant % 10, (variant * 7 + 3) % 10)
            try apply(.reorder(order))
            try apply(.setCustomizable(Array(order.prefix(7 + variant % 3))))
            try apply(.setHidden(order[8 + variant % 2], true))
            try apply(.select(.tab(order[variant % 4])))
            try apply(.setBadge(tabs[2], variant + 1))
            try apply(.addToBadge(tabs[2], 2))
            try apply(.setBadgeText(tabs[6], variant % 2 == 0 ? "new" : nil))
            made.append(document)
        }
        templates = made
    }

    /// The profile id of index `i`: zero-padded, so index order is key order (bulk loads append).
    static func profileName(_ index: Int) -> String {
        let digits = String(index)
        return "user-" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    func profile(_ index: Int) -> ProfileID {
        // The names are valid by construction.
        try! ProfileID(Self.profileName(index))
    }

    /// The storage key of profile `index`'s main bar: profile ‖ 0x00 ‖ "main", as TabKeep keys it.
    func key(_ index: Int) -> [UInt8] {
        DocumentKey(profile: profile(index), bar: .main).bytes
    }

    /// Profile `index`'s document: a template with the profile's own dots.
    func document(_ index: Int) -> TabBarDocument {
        let template = templates[index % templates.count]
        let base = UInt64(index) * Self.dotsPerProfile
        var sequence: UInt64 = 0
        let entries = template.entries.map { entry in
            var entry = entry
            sequence += 1
            entry.dot = Dot(replica: seedReplica, sequence: base + sequence)
            return entry
        }
        // Re-numbering dots keeps every rule the template already met.
        return try! TabBarDocument(entries: entries)
    }

    /// The encoded bytes of profile `index`'s document: what every contender stores.
    func bytes(_ index: Int) -> [UInt8] { document(index).encoded() }
}
