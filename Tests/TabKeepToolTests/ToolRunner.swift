import Foundation
import Testing

/// What one run of the `tabkeep` binary did.
struct ToolResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the built `tabkeep` binary, found next to the test bundle (`swift build --build-tests`
/// builds both into the same directory).
enum Tool {
    static let binary: String = {
        let candidates = [
            URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ].map { $0.appendingPathComponent("tabkeep").path }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }()

    /// Starts `tabkeep arguments…` (or another executable) with stdout and stderr going to files.
    static func start(_ arguments: [String], executable: String = binary) throws -> (Process, URL, URL) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let directory = FileManager.default.temporaryDirectory
        let out = directory.appendingPathComponent("tabkeep-out-\(UUID().uuidString)")
        let err = directory.appendingPathComponent("tabkeep-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }

    /// Runs `tabkeep arguments…` (or another executable) to completion.
    @discardableResult
    static func run(_ arguments: [String], executable: String = binary) throws -> ToolResult {
        let (process, out, err) = try start(arguments, executable: executable)
        process.waitUntilExit()
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        return ToolResult(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    /// Runs and expects exit 0; returns stdout.
    @discardableResult
    static func ok(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String
    {
        let result = try run(arguments)
        #expect(result.status == 0, "tabkeep \(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout
    }
}

/// The lines of a dump without its header and trailer (which carry the replica id, time and CRC).
func dumpBody(_ dump: String) -> [Substring] {
    let lines = dump.split(separator: "\n")
    return Array(lines.dropFirst().dropLast())
}
