import Foundation
import TabKeep

extension Bench {
    /// The profile count of the edit workloads' stores.
    var editProfiles: Int { options.smoke ? options.profiles[0] : 10_000 }

    /// durable-edit: one user edit made durable, TabKeep in `.full` and `.metaAsync` in each
    /// locking mode against raw LMDB put + commit of the same bytes in the same durabilities,
    /// SQLite WAL FULL, UserDefaults + synchronize(), and a JSON file written atomically with fsync.
    func durableEdit() throws {
        let count = editProfiles
        let scale = scaleLabel(count)
        var tabKeep: [(full: TabKeepStore, metaAsync: TabKeepStore)] = []
        for locking in options.lockings {
            tabKeep.append(
                (
                    try tabKeepStore("edit-tabkeep-full-\(locking)", count: count, locking: locking),
                    try tabKeepStore(
                        "edit-tabkeep-metaasync-\(locking)", count: count, durability: .metaAsync,
                        locking: locking)
                ))
        }
        let rawFull = try RawLMDB(path: path("edit-raw-full"), mode: .full)
        try rawFull.load(count: count, key: fixture.key, value: fixture.bytes)
        let rawMetaAsync = try RawLMDB(path: path("edit-raw-metaasync"), mode: .metaAsync)
        try rawMetaAsync.load(count: count, key: fixture.key, value: fixture.bytes)
        let sqlite = try SQLiteDatabase(path: path("edit-sqlite.db"), synchronous: "FULL")
        try sqlite.load(count: count, key: fixture.key, value: fixture.bytes)
        let defaults = try UserDefaultsStore(suite: "tabkeep-bench-edit")
        try defaults.load(count: count, value: fixture.bytes)
        let files = try JSONFiles(directory: path("edit-json"))
        let layouts = (0..<min(count, 64)).map {
            StoredLayout(fixture.document($0).layout(catalog: fixture.catalog))
        }
        try files.load(count: count) { layouts[$0 % layouts.count] }
        log("durable-edit \(scale): contenders loaded, measuring")

        let picks = sample(among: count, seed: 8)
        let profiles = picks.map(fixture.profile)
        let keys = picks.map(fixture.key)
        let values = picks.map(fixture.bytes)
        let defaultsKeys = picks.map(UserDefaultsStore.key)
        let paths = picks.map(files.path)
        let badge = fixture.tabs[2]
        let n = picks.count
        var contenders: [Contender] = []
        for (full, metaAsync) in tabKeep {
            contenders += [
                Contender(name: tabKeepName("TabKeep .full", full.locking), locking: full.locking) { i in
                    try full.edit(profiles[i % n], .addToBadge(badge, 1))
                },
                Contender(
                    name: tabKeepName("TabKeep .metaAsync", metaAsync.locking), locking: metaAsync.locking
                ) {
                    i in try metaAsync.edit(profiles[i % n], .addToBadge(badge, 1))
                },
            ]
        }
        contenders += [
            Contender(name: "raw LMDB .full") { i in try rawFull.put(keys[i % n], values[i % n]) },
            Contender(name: "raw LMDB .metaAsync") { i in try rawMetaAsync.put(keys[i % n], values[i % n]) },
            Contender(name: "SQLite WAL FULL") { i in try sqlite.write(keys[i % n], values[i % n]) },
            Contender(name: "UserDefaults+synchronize") { i in
                try defaults.write(defaultsKeys[i % n], values[i % n])
            },
            Contender(name: "JSON file+fsync") { i in try files.save(paths[i % n], layouts[i % layouts.count])
            },
        ]
        let samples = try interleave(contenders, seconds: options.seconds * 2)
        var rows = rows(.durableEdit, scale: scale, contenders, samples)
        func median(_ contender: String) -> Double {
            rows.first { $0.contender == contender }?.medianNanoseconds ?? .nan
        }
        let baseFull = median("raw LMDB .full")
        let baseMetaAsync = median("raw LMDB .metaAsync")
        for index in rows.indices {
            if rows[index].contender.contains(".metaAsync") {
                rows[index].ratioToRawLMDB = (rows[index].medianNanoseconds ?? .nan) / baseMetaAsync
                rows[index].note = "ratio to raw LMDB .metaAsync"
            } else {
                rows[index].ratioToRawLMDB = (rows[index].medianNanoseconds ?? .nan) / baseFull
            }
            if rows[index].contender.hasPrefix("UserDefaults"),
                let plist = defaults.plistBytes(configHome: path("config"))
            {
                rows[index].note = "rewrites a \(plist / 1024) KiB plist per synchronize()"
            }
        }
        report.rows += rows
        editStores = EditStores(tabKeep: tabKeep.map(\.full), raw: rawFull, sqlitePath: sqlite.path)
    }
}

/// The `.full` stores durable-edit populated, reused by concurrent-edits.
struct EditStores {
    /// One TabKeep store per `--locking` mode, in that order.
    var tabKeep: [TabKeepStore]
    var raw: RawLMDB
    var sqlitePath: String
}
