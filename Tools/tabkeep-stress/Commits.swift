import LMDBKit
import TabKeep

/// `commits`: makes `--edits N` edits (one commit each) under `--durability`, prints
/// `commits K` (the transactions committed, from LMDB's own counter), then `syncing`, then with
/// `--sync` calls `environment.sync()`, then prints `done`. The parent traces its flushes: the
/// `syncing` line marks where `sync()` begins.
enum Commits {
    static func run(store path: String, options: Options) throws -> Int32 {
        let name = options.value("durability") ?? "full"
        guard let durability = Durability(rawValue: name) else {
            throw StressError("unknown durability \(name)")
        }
        let edits = Int(options.value("edits") ?? "3") ?? 3
        let profile = try ProfileID(options.value("profile") ?? "p0")
        let store = try TabKeepStore(path: path, options: .init(durability: durability))
        let before = try store.environment.info().lastTransactionID
        for value in 1...max(edits, 1) {
            try store.edit(profile, catalog: Fixture.catalog, Fixture.edits(setting: value))
        }
        Line.out("commits \(try store.environment.info().lastTransactionID - before)")
        Line.out("syncing")
        if options.value("sync") != nil { try store.environment.sync() }
        Line.out("done")
        return 0
    }
}
