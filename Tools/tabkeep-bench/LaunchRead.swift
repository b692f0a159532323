import Foundation
import TabKeep

extension Bench {
    /// launch-read: the resolved layout of a random profile among N (with the registered catalog,
    /// and with the app's `Catalog` passed in; its order, and every property), in a store of each
    /// locking mode, against the same bytes
    /// fetched by raw LMDB, SQLite, UserDefaults, and a JSON file decoded with JSONDecoder.
    func launchRead() throws {
        for count in options.profiles {
            let scale = scaleLabel(count)
            let stores = try options.lockings.map { try sharedStore(count: count, locking: $0) }
            let raw = try RawLMDB(path: path("raw-\(scale)"), mode: .full)
            try raw.load(count: count, key: fixture.key, value: fixture.bytes)
            let sqlite = try SQLiteDatabase(path: path("sqlite-\(scale).db"))
            try sqlite.load(count: count, key: fixture.key, value: fixture.bytes)
            let withPeers = count <= peerCap
            var defaults: UserDefaultsStore?
            var files: JSONFiles?
            if count <= defaultsCap {
                let suite = try UserDefaultsStore(suite: "tabkeep-bench-read-\(scale)")
                try suite.load(count: count, value: fixture.bytes)
                defaults = suite
            }
            if withPeers {
                let folder = try JSONFiles(directory: path("json-\(scale)"))
                try folder.load(count: count) {
                    StoredLayout(fixture.document($0).layout(catalog: fixture.catalog))
                }
                files = folder
            }
            log("launch-read \(scale): contenders loaded, measuring")

            let picks = sample(among: count, seed: UInt64(count))
            let profiles = picks.map(fixture.profile)
            let keys = picks.map(fixture.key)
            let defaultsKeys = picks.map(UserDefaultsStore.key)
            let paths = picks.map { files?.path($0) ?? "" }
            let catalog = fixture.catalog
            var contenders: [Contender] = []
            for store in stores {
                contenders += [
                    // The README's call: the catalog registered for the bar.
                    Contender(name: tabKeepName("TabKeep", store.locking), locking: store.locking) {
                        [unowned self] i in
                        sink &+= try store.layout(profiles[i % profiles.count]).order.count
                    },
                    Contender(name: tabKeepName("TabKeep catalog:", store.locking), locking: store.locking) {
                        [unowned self] i in
                        sink &+= try store.layout(profiles[i % profiles.count], catalog: catalog).order.count
                    },
                    // What a tab bar's first show reads: every property, each built on first access.
                    Contender(
                        name: tabKeepName("TabKeep every property", store.locking), locking: store.locking
                    ) {
                        [unowned self] i in
                        let layout = try store.layout(profiles[i % profiles.count])
                        sink &+= layout.order.count + layout.hidden.count + layout.customizable.count
                        sink &+=
                            layout.badges.count + layout.badgeTexts.count
                            + (layout.selection == .none ? 0 : 1)
                    },
                ]
            }
            contenders += [
                Contender(name: "raw LMDB") { [unowned self] i in sink &+= try raw.get(keys[i % keys.count])
                },
                Contender(name: "SQLite WAL") { [unowned self] i in
                    sink &+= try sqlite.get(keys[i % keys.count])
                },
            ]
            if let defaults {
                contenders.append(
                    Contender(name: "UserDefaults") { [unowned self] i in
                        sink &+= try defaults.get(defaultsKeys[i % defaultsKeys.count])
                    })
            }
            if let files {
                contenders.append(
                    Contender(name: "JSON files") { [unowned self] i in
                        sink &+= try files.get(paths[i % paths.count])
                    })
            }
            let samples = try interleave(contenders, seconds: options.seconds)
            var rows = rows(.launchRead, scale: scale, contenders, samples)
            Report.ratios(&rows, baseline: "raw LMDB")
            if count > defaultsCap && withPeers {
                rows.append(
                    ResultRow(
                        workload: Workload.launchRead.rawValue, scale: scale, contender: "UserDefaults",
                        note:
                            "not run above \(scaleLabel(defaultsCap)): loading keys one by one did not finish"
                    ))
            }
            if !withPeers {
                rows.append(
                    ResultRow(
                        workload: Workload.launchRead.rawValue, scale: scale,
                        contender: "UserDefaults, JSON files",
                        note: "not run above \(scaleLabel(peerCap)): a ~1 GiB plist / a million files"))
            }
            report.rows += rows
        }
    }
}
