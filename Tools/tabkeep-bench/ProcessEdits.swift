import Foundation
import LMDBKit
import TabKeep

extension Bench {
    /// The writer processes of concurrent-edits' second row.
    static let writerProcesses = 4

    /// concurrent-edits across processes: 4 children of this bench (the hidden `--child edit`)
    /// each make durable edits, one writer per process, on ONE shared database for the phase's
    /// time — a TabKeep store of each locking mode (`edit`, one commit per edit: group commit
    /// does not reach across processes), SQLite WAL FULL, and raw LMDB `.full` — the same stores
    /// the 8-writer row used. Every child opens its database before a common start signal, so
    /// the time measured is only edits.
    func processEdits() async throws {
        guard let stores = editStores else { return }
        let count = editProfiles
        var phases = stores.tabKeep.map { store in
            editProcesses(
                tabKeepName("TabKeep, one commit per edit", store.locking), locking: store.locking,
                kind: .tabKeep, path: store.environment.path, count: count)
        }
        phases += [
            editProcesses("SQLite WAL FULL", kind: .sqlite, path: stores.sqlitePath, count: count),
            editProcesses(Self.rawEditPhase, kind: .rawLMDB, path: stores.raw.path, count: count),
        ]
        report.rows += try await measure(
            phases, scale: "\(scaleLabel(count)), \(Self.writerProcesses) processes",
            note: "one writer per process; median/p99: one edit; × raw = time per edit")
    }

    /// A phase that runs `writerProcesses` edit children on the database at `path` and gathers
    /// their edit times; its time is theirs from the start signal (not spawning and opening).
    private func editProcesses(
        _ name: String, locking: Locking? = nil, kind: EditChild.Kind, path: String, count: Int
    ) -> EditPhase {
        EditPhase(name: name, locking: locking) { seconds in
            var children: [EditChild] = []
            defer { for child in children { child.stop() } }
            for index in 0..<Self.writerProcesses {
                children.append(
                    try EditChild(kind: kind, path: path, count: count, seconds: seconds, seed: index + 1))
            }
            for child in children { try child.waitUntilReady() }
            for child in children { try child.start() }
            var run = EditRun(samples: Samples(), seconds: 0)
            for child in children {
                let report = try child.result()
                for value in report.nanoseconds { run.samples.add(value) }
                // They ran side by side: the phase lasted as long as the longest.
                run.seconds = max(run.seconds, report.seconds)
            }
            return run
        }
    }
}

/// One writer process of concurrent-edits: this executable run as
/// `--child edit KIND PATH PROFILES SECONDS SEED`. It opens the database, prints "ready", waits
/// for a line on its standard input, edits for SECONDS and prints an `EditChildReport`.
final class EditChild {
    /// The database the child writes.
    enum Kind: String {
        case tabKeep = "tabkeep"
        case sqlite
        case rawLMDB = "raw-lmdb"
    }

    /// The first argument after `--child` that selects this child.
    static let phase = "edit"
    static let ready = "ready"

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init(kind: Kind, path: String, count: Int, seconds: Double, seed: Int) throws {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = [
            "--child", Self.phase, kind.rawValue, path, String(count), String(seconds), String(seed),
        ]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Reads the child's "ready" line: it has opened its database.
    func waitUntilReady() throws {
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchError("edit child exited before it was ready") }
            line += chunk
        }
        guard String(decoding: line, as: UTF8.self).hasPrefix(Self.ready) else {
            throw BenchError("edit child: unexpected \"\(String(decoding: line, as: UTF8.self))\"")
        }
    }

    /// Tells the child to start editing.
    func start() throws {
        try input.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
    }

    /// Waits for the child to finish and decodes what it reports.
    func result() throws -> EditChildReport {
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("edit child exited with status \(process.terminationStatus)")
        }
        return try JSONDecoder().decode(EditChildReport.self, from: data)
    }

    /// Ends a child still running (a sibling failed before the start).
    func stop() {
        if process.isRunning { process.terminate() }
    }
}

/// What an edit child prints when its time is up: every edit's time, in nanoseconds, and how
/// long it edited from the start signal, in seconds.
struct EditChildReport: Codable {
    var nanoseconds: [UInt64]
    var seconds: Double
}

/// The child side of `EditChild`: `edit KIND PATH PROFILES SECONDS SEED`.
func runEditChild(_ arguments: [String]) throws {
    guard arguments.count == 5, let kind = EditChild.Kind(rawValue: arguments[0]),
        let count = Int(arguments[2]), count > 0, let seconds = Double(arguments[3]),
        let seed = UInt64(arguments[4])
    else { throw BenchError("--child edit needs: tabkeep|sqlite|raw-lmdb PATH PROFILES SECONDS SEED") }
    let path = arguments[1]
    let fixture = try Fixture()
    let badge = fixture.tabs[2]
    // Random profiles, their keys and bytes made before the start, as the 8 writers' are.
    var generator = SplitMix64(seed: seed &* 1_000_003)
    let picks = (0..<min(10_000, count * 4)).map { _ in Int(generator.next() % UInt64(count)) }
    let write: (Int) throws -> Void
    switch kind {
    case .tabKeep:
        // The store's recorded locking mode and `.full` durability: what an app's extension opens.
        let store = try TabKeepStore(path: path)
        let profiles = picks.map(fixture.profile)
        write = { i in try store.edit(profiles[i % profiles.count], .addToBadge(badge, 1)) }
    case .sqlite:
        let connection = try SQLiteDatabase(path: path, synchronous: "FULL")
        let keys = picks.map(fixture.key)
        let values = picks.map(fixture.bytes)
        write = { i in try connection.write(keys[i % keys.count], values[i % values.count]) }
    case .rawLMDB:
        let raw = try RawLMDB(path: path, mode: .full)
        let keys = picks.map(fixture.key)
        let values = picks.map(fixture.bytes)
        write = { i in try raw.put(keys[i % keys.count], values[i % values.count]) }
    }
    FileHandle.standardOutput.write(Data((EditChild.ready + "\n").utf8))
    guard readLine() != nil else { throw BenchError("--child edit: no start signal") }
    var times: [UInt64] = []
    let started = nanoseconds()
    let deadline = started + UInt64(seconds * 1e9)
    while nanoseconds() < deadline {
        let before = nanoseconds()
        try write(times.count)
        times.append(nanoseconds() - before)
    }
    let report = EditChildReport(nanoseconds: times, seconds: Double(nanoseconds() - started) / 1e9)
    FileHandle.standardOutput.write(try JSONEncoder().encode(report))
}
