import Foundation
import TabKeep

/// A hidden single-process mode for instruction counting: `TABKEEP_BENCH_CALLGRIND=workload:N`
/// (optionally `:profiles`, default 1000) runs that workload's TabKeep operation N times in this
/// process, with no child and no re-execution, so `valgrind --tool=callgrind` can follow it.
///
/// Setup (fixture, bulk load, one warm-up operation) is the same for every N, so the
/// instructions of one operation are (Ir(2N) − Ir(N)) / N. Workloads: `durable-edit` (one
/// `.addToBadge` in `.full`, as the bench's TabKeep contender), `launch-read` (one `layout`), and
/// `select-edit` (one `.select`). The store is made under `$TMPDIR` and removed after; the locking
/// mode is `TABKEEP_LOCKING`'s (else the platform default).
enum CallgrindRun {
    /// The environment variable that asks for this mode.
    static let variable = "TABKEEP_BENCH_CALLGRIND"

    /// Runs and exits when the variable is set; returns at once otherwise.
    static func runIfAsked() {
        guard let raw = getenv(variable).map({ String(cString: $0) }) else { return }
        let parts = raw.split(separator: ":").map(String.init)
        guard parts.count == 2 || parts.count == 3, let count = Int(parts[1]), count > 0,
            let profiles = parts.count == 3 ? Int(parts[2]) : 1_000, profiles > 0
        else {
            fail("\(variable)=\(raw): expected workload:iterations[:profiles], e.g. durable-edit:2000")
        }
        let directory =
            (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp") + "/tabkeep-callgrind-\(getpid())"
        do {
            try run(parts[0], count: count, profiles: profiles, directory: directory)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            fail("\(error)")
        }
        try? FileManager.default.removeItem(atPath: directory)
        exit(0)
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("tabkeep-bench callgrind: \(message)\n".utf8))
        exit(2)
    }

    private static func run(_ workload: String, count: Int, profiles: Int, directory: String) throws {
        let fixture = try Fixture()
        let operation: (TabKeepStore, ProfileID) throws -> Int
        switch workload {
        case "durable-edit":
            let badge = fixture.tabs[2]
            operation = { store, profile in
                try store.edit(profile, .addToBadge(badge, 1))
                return 1
            }
        case "select-edit":
            let tabs = fixture.tabs
            operation = { store, profile in
                try store.edit(profile, .select(.tab(tabs[0])))
                return 1
            }
        case "launch-read":
            operation = { store, profile in try store.layout(profile).order.count }
        default:
            fail("unknown workload \(workload); expected durable-edit, select-edit or launch-read")
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/store"
        do {
            let loader = try TabKeepStore(path: path, options: .init(durability: .deferred))
            try loader.registerCatalog(fixture.catalog)
            try loader.importDocuments(mode: .merge, sizeHint: profiles * 1_400) { add in
                for index in 0..<profiles {
                    try add(DocumentKey(profile: fixture.profile(index), bar: .main), fixture.document(index))
                }
            }
            try loader.environment.sync()
        }
        let store = try TabKeepStore(path: path, options: .init(durability: .full))
        let picks = (0..<profiles).map(fixture.profile)
        var sink = try operation(store, picks[0])
        sink &+= try measured(count, store, picks, operation)
        FileHandle.standardError.write(
            Data("tabkeep-bench callgrind: \(workload) ×\(count) done (\(sink))\n".utf8))
    }

    /// The measured loop, kept out of line so `--toggle-collect` can name it.
    @inline(never)
    private static func measured(
        _ count: Int, _ store: TabKeepStore, _ picks: [ProfileID],
        _ operation: (TabKeepStore, ProfileID) throws -> Int
    ) throws -> Int {
        var sink = 0
        for index in 0..<count { sink &+= try operation(store, picks[(index &* 7_919) % picks.count]) }
        return sink
    }
}
