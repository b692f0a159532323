import TabKeep

/// `tabkeep stat`: the store's figures.
enum StatCommand {
    static let spec = CommandSpec(
        name: "stat", usage: "STORE [--json]",
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
        positionals: ["STORE"], flags: [FlagSpec(name: "json")], run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let store = try Stores.readOnly(arguments.positionals[0])
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
        if arguments.has("json") {
            let perDatabase = databases.map { name, stats in
                "\(Output.json(name)):{\"depth\":\(stats.depth),\"entries\":\(stats.entries),"
                    + "\"branchPages\":\(stats.branchPages),\"leafPages\":\(stats.leafPages),"
                    + "\"overflowPages\":\(stats.overflowPages)}"
            }
            let versions = vector.replicas.map { "\(Output.json($0.description)):\(vector[$0])" }
            print(
                "{\"schema\":\(schema),\"replica\":\(Output.json(store.replicaID.description)),"
                    + "\"locking\":\(Output.json(store.locking.rawValue)),"
                    + "\"pageSize\":\(figures.pageSize),\"depth\":\(depth),\"entries\":\(entries),"
                    + "\"mapSize\":\(figures.mapSize),\"usedBytes\":\(figures.usedBytes),"
                    + "\"profiles\":\(profiles.count),\"bars\":\(bars),\"documents\":\(documents),"
                    + "\"versionVector\":{\(versions.joined(separator: ","))},"
                    + "\"identityHistory\":[\(history.map { Output.json($0.description) }.joined(separator: ","))],"
                    + "\"databases\":{\(perDatabase.joined(separator: ","))}}")
        } else {
            print("store        \(arguments.positionals[0])")
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
