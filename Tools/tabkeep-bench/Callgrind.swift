import Foundation
import TabKeep
import TabKeepDump
import TabKeepSync

/// A hidden single-process mode for instruction counting: `TABKEEP_BENCH_CALLGRIND=workload:N`
/// (optionally `:profiles`, default 1000) runs that workload's TabKeep operation N times in this
/// process, with no child and no re-execution, so `valgrind --tool=callgrind` can follow it.
///
/// Setup (fixture, bulk load, one warm-up operation) is the same for every N, so the
/// instructions of one operation are (Ir(2N) − Ir(N)) / N. Workloads: `durable-edit` (one
/// `.addToBadge` in `.full`, as the bench's TabKeep contender), `durable-edit-meta-async` (the
/// same in `.metaAsync`), `launch-read` (one `layout` and its
/// order), `launch-read-all` (one `layout` and every property), and
/// `select-edit` (one `.select`).
///
/// Two bulk workloads count only what their measured functions do, with callgrind's
/// `--toggle-collect` naming them (their set-up between rounds is not the operation):
/// `sync-delta` runs N rounds of the sync bench's delta (a tenth of the profiles edited on one
/// store, not collected; then `callgrindExtract`: request + reply + encode, and
/// `callgrindApply`: decode + receive, told apart by `callgrind_annotate --inclusive=yes`), and
/// `restore` runs N replace restores of one version-3 dump of every profile (`callgrindRestore`). Each prints on stderr the entries or
/// profiles its measured calls handled, to divide by. The store is made under `$TMPDIR` and
/// removed after; the locking mode is `TABKEEP_LOCKING`'s (else the platform default).
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
        switch workload {
        case "sync-delta":
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return try syncRounds(
                workload, count: count, profiles: profiles, fixture: fixture, directory: directory)
        case "restore":
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return try restores(count: count, profiles: profiles, fixture: fixture, directory: directory)
        case "first-layout":
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = directory + "/store"
            try load(path, profiles: profiles, fixture: fixture)
            let picks = (0..<profiles).map(fixture.profile)
            var tabs = 0
            for index in 0..<count {
                tabs += try callgrindFirstLayout(path, picks[(index &* 7_919) % picks.count])
            }
            FileHandle.standardError.write(
                Data("tabkeep-bench callgrind: first-layout ×\(count) done: \(tabs) tabs\n".utf8))
            return
        default: break
        }
        let operation: (TabKeepStore, ProfileID) throws -> Int
        switch workload {
        case "durable-edit", "durable-edit-meta-async":
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
        case "launch-read-all":
            operation = { store, profile in
                let layout = try store.layout(profile)
                return layout.order.count + layout.hidden.count + layout.customizable.count
                    + layout.badges.count
                    + layout.badgeTexts.count + (layout.selection == .none ? 0 : 1)
            }
        default:
            fail(
                "unknown workload \(workload); expected durable-edit, durable-edit-meta-async, select-edit, launch-read, launch-read-all, first-layout, sync-delta or restore"
            )
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/store"
        try load(path, profiles: profiles, fixture: fixture)
        let store = try TabKeepStore(
            path: path,
            options: .init(durability: workload == "durable-edit-meta-async" ? .metaAsync : .full))
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

    /// A store at `path` holding `profiles` fixture documents, flushed.
    private static func load(_ path: String, profiles: Int, fixture: Fixture) throws {
        let loader = try TabKeepStore(path: path, options: .init(durability: .deferred))
        try loader.registerCatalog(fixture.catalog)
        try loader.importDocuments(mode: .merge, sizeHint: profiles * 1_400) { add in
            for index in 0..<profiles {
                try add(DocumentKey(profile: fixture.profile(index), bar: .main), fixture.document(index))
            }
        }
        try loader.environment.sync()
    }

    /// `count` rounds of the sync bench's delta between two stores of `profiles` profiles.
    private static func syncRounds(
        _ workload: String, count: Int, profiles: Int, fixture: Fixture, directory: String
    ) throws {
        try load(directory + "/a", profiles: profiles, fixture: fixture)
        try load(directory + "/b", profiles: profiles, fixture: fixture)
        let a = SyncSession(
            store: try TabKeepStore(path: directory + "/a", options: .init(durability: .deferred)))
        let b = SyncSession(
            store: try TabKeepStore(path: directory + "/b", options: .init(durability: .deferred)))
        // The first exchange tells each store the other's replica: not a delta.
        if let final = try b.receive(try a.respond(to: try b.request())).reply { try a.receive(final) }
        let badge = fixture.tabs[2]
        let edits = max(1, profiles / 10)
        var entries = 0
        for round in 0..<count {
            for index in 0..<edits {
                try a.store.edit(
                    fixture.profile((index * 7 + round * edits) % profiles), .addToBadge(badge, 1))
            }
            let reply = try callgrindExtract(a, b)
            let message = try SyncMessage(decoding: reply)
            entries += message.documents.reduce(0) { $0 + $1.document.entries.count }
            if let final = try callgrindApply(b, reply) { try a.receive(final) }
        }
        FileHandle.standardError.write(
            Data("tabkeep-bench callgrind: \(workload) ×\(count) done: \(entries) entries\n".utf8))
    }

    /// The sync bench's extract: `b`'s request, `a`'s reply to it, encoded.
    @inline(never)
    static func callgrindExtract(_ a: SyncSession, _ b: SyncSession) throws -> [UInt8] {
        try a.respond(to: try b.request()).encoded()
    }

    /// The sync bench's apply: the reply decoded and received by `b`; the final to send back.
    @inline(never)
    static func callgrindApply(_ b: SyncSession, _ reply: [UInt8]) throws -> SyncMessage? {
        try b.receive(try SyncMessage(decoding: reply)).reply
    }

    /// `count` replace restores of one dump of `profiles` profiles into one store.
    private static func restores(count: Int, profiles: Int, fixture: Fixture, directory: String) throws {
        let source = directory + "/source"
        try load(source, profiles: profiles, fixture: fixture)
        let file = directory + "/dump.jsonl"
        var bytes: [UInt8] = []
        try TabKeepStore(path: source).dump { chunk in bytes += chunk }
        guard FileManager.default.createFile(atPath: file, contents: Data(bytes)) else {
            throw BenchError("cannot create \(file)")
        }
        let target = try TabKeepStore(path: directory + "/target")
        var restored = 0
        for _ in 0..<count { restored += try callgrindRestore(target, file) }
        FileHandle.standardError.write(
            Data("tabkeep-bench callgrind: restore ×\(count) done: \(restored) profiles\n".utf8))
    }

    /// An app's first read: the store opened, one layout read, the store closed again; its tab count.
    @inline(never)
    static func callgrindFirstLayout(_ path: String, _ profile: ProfileID) throws -> Int {
        try TabKeepStore(path: path).layout(profile).order.count
    }

    /// One replace restore of the dump at `file`; the documents it restored.
    @inline(never)
    static func callgrindRestore(_ store: TabKeepStore, _ file: String) throws -> Int {
        try store.restore(fromDumpAt: file, mode: .replace).summary.documents
    }
}
