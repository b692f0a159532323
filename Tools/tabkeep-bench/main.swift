// tabkeep-bench: TabKeep measured side by side with raw LMDB, SQLite and UserDefaults.
import Foundation
import ToolSupport

CallgrindRun.runIfAsked()  // TABKEEP_BENCH_CALLGRIND: one process, for valgrind (Callgrind.swift)

let options: Options
do {
    guard let parsed = try Options.parse(Array(CommandLine.arguments.dropFirst())) else {
        print(Options.usage)
        exit(0)
    }
    options = parsed
} catch {
    Options.diagnostics.error(error.message)
    Options.diagnostics.note("usage: tabkeep-bench \(Options.command.usageArguments)")
    Options.diagnostics.note("Run 'tabkeep-bench --help' for details.")
    exit(2)
}

if !options.child.isEmpty {
    do {
        if options.child.first == EditChild.phase {
            try runEditChild(Array(options.child.dropFirst()))
        } else {
            try runChild(options.child)
        }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("tabkeep-bench child: \(error)\n".utf8))
        exit(1)
    }
}

// Foundation on Linux keeps UserDefaults suites under $XDG_CONFIG_HOME, read before main runs:
// so the bench re-executes itself once with it pointed at the bench directory, never at ~/.config.
let benchDirectoryVariable = "TABKEEP_BENCH_DIRECTORY"
let temporary = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
let inherited = getenv(benchDirectoryVariable).map { String(cString: $0) }
let ownsDirectory = options.directory == nil
let directory = options.directory ?? inherited ?? "\(temporary)/tabkeep-bench-\(getpid())"
if inherited == nil {
    setenv(benchDirectoryVariable, directory, 1)
    setenv("XDG_CONFIG_HOME", directory + "/config", 1)
    var arguments = CommandLine.arguments.map { strdup($0) } + [nil]
    execv("/proc/self/exe", &arguments)
    FileHandle.standardError.write(Data("tabkeep-bench: cannot re-execute itself: errno \(errno)\n".utf8))
    exit(1)
}
do {
    try FileManager.default.createDirectory(atPath: directory + "/config", withIntermediateDirectories: true)
    let bench = try Bench(options: options, directory: directory)
    bench.log("tabkeep-bench in \(directory); machine: \(bench.report.machine.summary)")
    for workload in Workload.allCases where options.only == nil || options.only == workload {
        bench.log("workload \(workload.rawValue)")
        switch workload {
        case .launchRead: try bench.launchRead()
        case .durableEdit: try bench.durableEdit()
        case .concurrentEdits: try await bench.concurrentEdits()
        case .sync: try await bench.syncWorkload()
        case .dumpRestore: try bench.dumpRestore()
        case .firstLayout: try bench.firstLayout()
        case .s3: try await bench.s3Workload()
        }
    }
    bench.judgeTargets()
    print(options.json ? bench.report.json() : bench.report.table())
    if ownsDirectory { try? FileManager.default.removeItem(atPath: directory) }
} catch {
    FileHandle.standardError.write(Data("tabkeep-bench: \(error)\n".utf8))
    if ownsDirectory { try? FileManager.default.removeItem(atPath: directory) }
    exit(1)
}
