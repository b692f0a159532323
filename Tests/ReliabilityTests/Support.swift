import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The programs the suite drives, built next to the test bundle by `swift build --build-tests`.
enum Built {
    static func product(_ name: String) -> String { builtProduct(name) ?? name }

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

    init(_ executable: String, _ arguments: [String], in directory: TemporaryDirectory) throws {
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
func run(_ executable: String, _ arguments: [String], in directory: TemporaryDirectory) throws -> (
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
func verifyProblems(_ store: String, in directory: TemporaryDirectory) throws -> String? {
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
