import Foundation
import Testing

/// `TABKEEP_BENCH_CALLGRIND=workload:N[:profiles]` runs one workload's TabKeep operation in the
/// bench's own process (no child, no re-execution, which valgrind cannot follow), and refuses a
/// malformed value or an unknown workload with a message naming it.
@Suite("tabkeep-bench single-process mode")
struct BenchCallgrindModeTests {
    static let bench = URL(fileURLWithPath: Tool.binary).deletingLastPathComponent()
        .appendingPathComponent("tabkeep-bench").path

    func run(_ value: String) throws -> ToolResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.bench)
        process.environment = ProcessInfo.processInfo.environment.merging(["TABKEEP_BENCH_CALLGRIND": value])
        {
            $1
        }
        let err = Pipe()
        let out = Pipe()
        process.standardError = err
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ToolResult(
            status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
            stderr: String(decoding: errors, as: UTF8.self))
    }

    @Test(arguments: ["durable-edit", "select-edit", "launch-read", "sync-delta", "restore"])
    func eachWorkloadRunsInOneProcess(_ workload: String) throws {
        let result = try run("\(workload):3:5")
        #expect(result.status == 0, "\(result.stderr)")
        // The warm-up and three measured operations ran, in this process.
        #expect(result.stderr.contains("\(workload) ×3 done"), "\(result.stderr)")
        #expect(!result.stderr.contains("tabkeep-bench in "), "the bench's own run started: \(result.stderr)")
    }

    /// The bulk workloads print what their measured calls handled, to divide the count by: three
    /// restores of five profiles restored 15; three sync rounds of one edited profile each carried
    /// that profile's changed entries every round.
    @Test func bulkWorkloadsCountWhatTheyHandled() throws {
        let restore = try run("restore:3:5")
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stderr.contains("restore ×3 done: 15 profiles"), "\(restore.stderr)")
        let sync = try run("sync-delta:3:5")
        #expect(sync.status == 0, "\(sync.stderr)")
        let entries = sync.stderr.split(separator: "done: ").last.flatMap { Int($0.prefix { $0.isNumber }) }
        #expect((entries ?? 0) >= 3, "\(sync.stderr)")
    }

    @Test(arguments: ["durable-edit", "durable-edit:0", "durable-edit:x", "durable-edit:2:0", "nothing:5"])
    func aMalformedValueIsRefusedByName(_ value: String) throws {
        let result = try run(value)
        #expect(result.status == 2, "\(value): \(result.stderr)")
        #expect(result.stderr.contains("tabkeep-bench callgrind:"), "\(value): \(result.stderr)")
        #expect(
            result.stderr.contains(value.hasPrefix("nothing") ? "unknown workload nothing" : value),
            "\(value): \(result.stderr)")
    }
}
