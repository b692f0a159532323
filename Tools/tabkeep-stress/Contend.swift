import TabKeep

/// `contend`: edits the one shared document (profile `shared`) forever, as one of several
/// processes doing the same: adds 1 to the inbox badge (`ack add`) or moves this writer's own
/// tab (`--tab`) to a random place (`ack move <tab> <stamp>`, the stamp its position entry then
/// holds). Nothing another process commits may undo an acknowledged line: a lost update shows as
/// a badge below the acknowledged adds, or a position entry older than the acknowledged stamp.
enum Contend {
    static let profile = try! ProfileID("shared")

    static func run(store path: String, options: Options) throws -> Int32 {
        let tab = try TabID(options.value("tab") ?? "home")
        var random = SplitMix64(seed: UInt64(options.value("seed") ?? "1") ?? 1)
        // The normal open, so a locking mode chosen for the run (TABKEEP_LOCKING) applies here too.
        let store = try TabKeepStore(path: path)
        Line.out("ready")
        while true {
            if random.next() % 3 == 0 {
                let index = Int(random.next() % UInt64(Fixture.catalog.tabs.count))
                try store.edit(profile, catalog: Fixture.catalog, .move(tab, to: index))
                let entry = try store.document(profile)?.entries.first { $0.key == .position(tab) }
                Line.out("ack move \(tab) \(entry?.stamp.rawValue ?? 0)")
            } else {
                try store.edit(profile, catalog: Fixture.catalog, .addToBadge(Fixture.badgeTab, 1))
                Line.out("ack add")
            }
        }
    }
}
