import TabKeep
import ToolSupport

/// `tabkeep stat`: the store's figures.
enum StatCommand {
    static let command = Command(
        name: "stat",
        summary:
            "Print a store's figures: LMDB pages and entries, counts, replica id, version vector, schema.",
        details: """
            LMDB figures (page size, map size and the bytes used, and per database its B-tree depth
            and entries), the counts of profiles, bars (stored and not erased) and documents (erased
            ones included), the replica id, the version vector, the schema and the locking mode
            (lmdb or per-transaction). --json prints one object.

            Example:
              tabkeep stat ~/stores/app
              tabkeep stat ~/stores/app --json
            """,
        syntax: CommandSyntax(positionals: [Flags.store], flags: [.switch(Flags.json)]), run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let path = arguments.value(of: Flags.store)
        let store = try Stores.readOnly(path)
        let figures = try store.statistics()
        let databases = figures.databases.map { ($0.name, $0.statistics) }
        let profiles = try store.profiles()
        let bars = try profiles.reduce(0) { $0 + (try store.bars(of: $1)).count }
        let documents = figures.documents
        let history = try store.identityHistory()
        let schema = try store.storedSchema()
        // A first-release store read without migrating keeps one vector in the old layout: not shown.
        let vector = schema < 2 ? VersionVector() : try store.versionVector()
        let entries = figures.entries
        let depth = figures.depth
        if arguments[Flags.json] {
            let perDatabase = databases.map { name, stats -> (String, JSON) in
                (
                    name,
                    .object([
                        ("depth", .integer(stats.depth)), ("entries", .integer(stats.entries)),
                        ("branchPages", .integer(stats.branchPages)),
                        ("leafPages", .integer(stats.leafPages)),
                        ("overflowPages", .integer(stats.overflowPages)),
                    ])
                )
            }
            let versions = vector.replicas.map { ($0.description, JSON.integer(vector[$0])) }
            let object: JSON = .object([
                ("schema", .integer(schema)), ("replica", .string(store.replicaID.description)),
                ("locking", .string(store.locking.rawValue)), ("pageSize", .integer(figures.pageSize)),
                ("depth", .integer(depth)), ("entries", .integer(entries)),
                ("mapSize", .integer(figures.mapSize)),
                ("usedBytes", .integer(figures.usedBytes)), ("profiles", .integer(profiles.count)),
                ("bars", .integer(bars)), ("documents", .integer(documents)),
                ("versionVector", .object(versions)),
                ("identityHistory", .strings(history.map(\.description))),
                ("databases", .object(perDatabase)),
            ])
            print(object.text)
        } else {
            print("store        \(path)")
            print(
                "schema       \(schema)\(schema < TabKeepStore.schemaVersion ? " (migrated to \(TabKeepStore.schemaVersion) on the first open for writing)" : "")"
            )
            print("replica      \(store.replicaID)")
            print("locking      \(store.locking)")
            print(
                "was before   \(history.isEmpty ? "none (the id this store was created with)" : history.map(\.description).joined(separator: ", "))"
            )
            print("page size    \(figures.pageSize) bytes")
            print("map size     \(figures.mapSize) bytes, \(figures.usedBytes) used")
            print("depth        \(depth) (deepest B-tree)")
            print("entries      \(entries)")
            for (name, stats) in databases {
                let padded = name + String(repeating: " ", count: 10 - name.count)
                print("  \(padded) depth \(stats.depth), \(stats.entries) entries")
            }
            print("profiles     \(profiles.count)")
            print("bars         \(bars)")
            print("documents    \(documents) (erased ones included)")
            print("versions     \(vector) (highest per replica, any profile)")
        }
        return 0
    }
}
