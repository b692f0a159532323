import Foundation
import LMDBKit
import Synchronization
import TabKeep
import TabKeepDump

extension Bench {
    /// dump and restore: profiles per second and peak resident memory at 100k and 1M profiles,
    /// each phase in a child process of its own (the bench re-run with a hidden flag), so each
    /// peak (`VmHWM`) is that phase's alone; in every locking mode asked for.
    func dumpRestore() throws {
        let sizes = options.smoke ? options.profiles : options.profiles.filter { $0 >= 100_000 }
        for count in sizes {
            for locking in options.lockings {
                try dumpRestore(count: count, locking: locking)
            }
        }
    }

    /// The dump, replace restore and merge restore of one store size in one locking mode (the
    /// restored stores created in it too).
    private func dumpRestore(count: Int, locking: Locking) throws {
        let scale = scaleLabel(count)
        let store = try sharedStore(count: count, locking: locking)
        let file = path("dump-\(scale)-\(locking).jsonl")
        let target = path("restored-\(scale)-\(locking)")
        let dump = try child(["dump", store.environment.path, file])
        let restore = try child(["restore", file, target, locking.rawValue])
        // A merge restore stays one transaction: its peak grows with the dump.
        let merge = try child(["restore", file, target + "-merge", locking.rawValue, "merge"])
        try? FileManager.default.removeItem(atPath: file)
        try? FileManager.default.removeItem(atPath: target)
        try? FileManager.default.removeItem(atPath: target + "-merge")
        for (name, figures) in [
            ("TabKeep dump", dump), ("TabKeep restore (.replace)", restore),
            ("TabKeep restore (.merge)", merge),
        ] {
            report.rows.append(
                ResultRow(
                    workload: Workload.dumpRestore.rawValue, scale: scale,
                    contender: tabKeepName(name, locking),
                    medianNanoseconds: nil, p99Nanoseconds: nil, operations: figures.documents,
                    rate: Double(figures.documents) / figures.seconds, rateUnit: "profiles/s",
                    note: String(
                        format:
                            "%.2f s; peak heap %d MiB (mallinfo2); peak RSS %d MiB (anon %d MiB, mapped file %d MiB)%@",
                        figures.seconds, figures.peakHeapKiB / 1024, figures.peakKiB / 1024,
                        figures.peakAnonKiB / 1024, figures.peakFileKiB / 1024,
                        figures.bytes > 0 ? ", \(figures.bytes >> 20) MiB dump" : ""),
                    locking: locking.rawValue))
            phaseFigures[Self.phaseKey(name, scale, locking)] = figures
        }
    }

    /// The key of a dump or restore phase's figures in `phaseFigures`.
    static func phaseKey(_ phase: String, _ scale: String, _ locking: Locking) -> String {
        "\(phase) \(scale) \(locking)"
    }

    /// Runs this executable with `--child` and `arguments`, and reads the figures it prints.
    private func child(_ arguments: [String]) throws -> PhaseFigures {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = ["--child"] + arguments
        let output = Pipe()
        process.standardOutput = output
        // Each phase starts on a quiet disk: the write-back of the phases and stores before it
        // (the dump file, the stores just built) would otherwise land in its own flush.
        sync()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("child \(arguments.first ?? "") exited with status \(process.terminationStatus)")
        }
        return try JSONDecoder().decode(PhaseFigures.self, from: data)
    }
}

/// What a dump or restore child reports.
struct PhaseFigures: Codable {
    var documents: Int
    var seconds: Double
    /// `VmHWM`: the peak resident set, including the store's pages mapped from the file.
    var peakKiB: Int
    /// The largest `RssAnon` seen (sampled every 2 ms): the memory the phase allocated.
    var peakAnonKiB: Int
    /// The largest `RssFile` seen: pages of the LMDB map (and binary) resident, reclaimable page cache.
    var peakFileKiB: Int
    /// The largest heap in use seen (`mallinfo2()`, sampled with the others; `RssAnon` where it
    /// cannot be read): what the phase holds, without mapped file pages, which the kernel can drop.
    var peakHeapKiB: Int
    var bytes: Int
}

/// The child side: `--child dump STORE FILE` or `--child restore FILE STORE LOCKING [merge]`
/// (a replace restore unless `merge` is given).
func runChild(_ arguments: [String]) throws {
    let restoring = arguments.first == "restore"
    guard restoring ? (4...5).contains(arguments.count) : arguments.count == 3,
        arguments.count < 5 || arguments[4] == "merge"
    else {
        throw BenchError("--child needs: dump STORE FILE | restore FILE STORE LOCKING [merge]")
    }
    let watcher = MemoryWatcher()
    let started = nanoseconds()
    var documents = 0
    var bytes = 0
    switch arguments[0] {
    case "dump":
        let store = try TabKeepStore(path: arguments[1])
        guard FileManager.default.createFile(atPath: arguments[2], contents: nil),
            let handle = FileHandle(forWritingAtPath: arguments[2])
        else { throw BenchError("cannot create \(arguments[2])") }
        let records = try store.dump { chunk in
            bytes += chunk.count
            try handle.write(contentsOf: chunk)
        }
        try handle.synchronize()
        try handle.close()
        documents = try records - store.catalogs().count
    case "restore":
        guard let locking = Locking(rawValue: arguments[3]) else {
            throw BenchError("--child restore: unknown locking mode \(arguments[3])")
        }
        let store = try TabKeepStore(path: arguments[2], options: .init(locking: locking))
        let mode: ImportMode = arguments.count == 5 ? .merge : .replace
        let (summary, _) = try store.restore(fromDumpAt: arguments[1], mode: mode)
        documents = summary.documents
        bytes = summary.bytes
    default:
        throw BenchError("--child: unknown phase \(arguments[0])")
    }
    let seconds = Double(nanoseconds() - started) / 1e9
    let peaks = watcher.stop()
    let figures = PhaseFigures(
        documents: documents, seconds: seconds, peakKiB: MemoryWatcher.status("VmHWM"),
        peakAnonKiB: peaks.anon,
        peakFileKiB: peaks.file, peakHeapKiB: peaks.heap, bytes: bytes)
    let data = try JSONEncoder().encode(figures)
    FileHandle.standardOutput.write(data)
}

/// Samples `/proc/self/status` (every 2 ms) and the heap (``Heap/inUse()``, every 100 ms) on a
/// thread of its own and keeps the peaks of RssAnon, RssFile and the heap in use.
final class MemoryWatcher: Sendable {
    private let state = Mutex<(anon: Int, file: Int, heap: Int, running: Bool)>((0, 0, 0, true))

    init() {
        let thread = Thread { [self] in
            var round = 0
            while state.withLock({ $0.running }) {
                // One read of the file a round: two took a tenth of a core, beside a dump (perf).
                let (anon, file) = Self.resident()
                // mallinfo2 walks every free chunk holding the arena's lock: every 2 ms it took a
                // quarter of a restore's time (perf). Every 100 ms, it costs little and misses at
                // most 100 ms of a heap's growth.
                round += 1
                let heap = round % 50 == 1 ? Heap.inUse().map { $0 >> 10 } ?? anon : 0
                state.withLock {
                    $0.anon = max($0.anon, anon)
                    $0.file = max($0.file, file)
                    $0.heap = max($0.heap, heap)
                }
                usleep(2_000)
            }
        }
        thread.start()
    }

    func stop() -> (anon: Int, file: Int, heap: Int) {
        let (anon, file) = Self.resident()
        let heap = Heap.inUse().map { $0 >> 10 } ?? anon
        return state.withLock { state in
            state.running = false
            return (max(state.anon, anon), max(state.file, file), max(state.heap, heap))
        }
    }

    /// A `kB` field of `/proc/self/status`, in KiB (0 if absent).
    static func status(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        return status(field, in: text)
    }

    /// `RssAnon` and `RssFile`, in KiB, from one read of `/proc/self/status`.
    static func resident() -> (anon: Int, file: Int) {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            return (0, 0)
        }
        return (status("RssAnon", in: text), status("RssFile", in: text))
    }

    /// A `kB` field of the text of `/proc/self/status` (0 if absent).
    private static func status(_ field: String, in text: String) -> Int {
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        }
        return 0
    }
}
