import Foundation
import TabKeep
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh directory for one test (tests run in parallel), removed afterwards.
final class TestDirectory: Sendable {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.path + "/tabkeep-reliability-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func sub(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The programs the suite drives, built next to the test bundle by `swift build --build-tests`.
enum Built {
    static func product(_ name: String) -> String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        return name
    }

    static let stress = product("tabkeep-stress")
    static let tool = product("tabkeep")
    static let fuzz = product("tabkeep-fuzz")
}

/// A child process whose standard output goes to a file, so what it printed before a kill can
/// be read afterwards.
final class Child {
    let process = Process()
    let output: String
    let errors: String

    init(_ executable: String, _ arguments: [String], in directory: TestDirectory) throws {
        let name = UUID().uuidString
        output = directory.sub("out-\(name)")
        errors = directory.sub("err-\(name)")
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Kills the child with SIGKILL (no cleanup of any kind runs) and waits for it.
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits for the child to exit and returns its status.
    @discardableResult
    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The complete lines printed so far (a last line without its newline is left out).
    var lines: [String] {
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()
        return lines
    }

    var errorText: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }

    /// Waits until a line starting with `prefix` appears, up to `seconds`.
    func waitForLine(startingWith prefix: String, seconds: Double = 30) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let line = lines.first(where: { $0.hasPrefix(prefix) }) { return line }
            if !process.isRunning { return lines.first(where: { $0.hasPrefix(prefix) }) }
            usleep(2_000)
        }
        return nil
    }
}

/// Runs a program to completion and returns its status and standard output.
@discardableResult
func run(_ executable: String, _ arguments: [String], in directory: TestDirectory) throws -> (
    status: Int32, output: String
) {
    let child = try Child(executable, arguments, in: directory)
    let status = child.wait()
    let output = ((try? String(contentsOfFile: child.output, encoding: .utf8)) ?? "") + child.errorText
    try? FileManager.default.removeItem(atPath: child.output)
    try? FileManager.default.removeItem(atPath: child.errors)
    return (status, output)
}

/// `tabkeep verify STORE`, the CLI's own checks; returns its output when they fail.
func verifyProblems(_ store: String, in directory: TestDirectory) throws -> String? {
    let (status, output) = try run(Built.tool, ["verify", store], in: directory)
    return status == 0 && output.hasPrefix("ok") ? nil : output
}

/// How many kills a crash test makes: `base` normally, 25 times more with `TABKEEP_SOAK=1`,
/// or exactly `TABKEEP_KILLS` when set.
func killCount(_ base: Int) -> Int {
    let environment = ProcessInfo.processInfo.environment
    if let exact = environment["TABKEEP_KILLS"].flatMap(Int.init) { return exact }
    return environment["TABKEEP_SOAK"] == "1" ? base * 25 : base
}

/// The catalog and the atomic edit the drivers use (see Tools/tabkeep-stress/Stress.swift).
enum Fixture {
    static let badgeTab = try! TabID("inbox")
    static let catalog = try! Catalog(
        ["home", "inbox", "search", "library", "settings"].map { try TabID($0) })

    static func edits(setting value: Int) -> [TabBarEdit] {
        [.setBadge(badgeTab, value), .setBadgeText(badgeTab, String(value))]
    }

    /// The badge a document shows, or nil when count and text disagree (a half-applied edit).
    static func badge(of document: TabBarDocument) -> Int? {
        let layout = document.layout(catalog: catalog)
        let count = layout.badges[badgeTab] ?? 0
        let text = layout.badgeTexts[badgeTab].flatMap { Int($0) } ?? 0
        return count == text ? count : nil
    }
}

/// Tallies across the suite, printed by each test for the report.
func report(_ text: String) {
    print("[reliability] \(text)")
}

/// The path of a program on `PATH` (lmdb-utils' `mdb_stat`, say), or nil.
func which(_ name: String) -> String? {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}
