import Foundation
import LMDBKit
import ToolSupport

/// The command line, parsed by ToolSupport against the flags declared below.
struct Options {
    var profiles: [Int] = [10_000, 100_000, 1_000_000]
    var seconds: Double = 4
    var json = false
    var smoke = false
    var only: Workload?
    var directory: String?
    /// The locking modes TabKeep's stores are measured in (`--locking`), in the order they run.
    var lockings: [Locking] = Locking.allCases
    /// Set by the hidden `--child` flag: this process is a dump or restore run of a parent bench.
    var child: [String] = []

    static let profilesOption = Option(
        name: "profiles", placeholder: "LIST",
        help: "store sizes for launch-read (default 10k,100k,1M; k and M allowed)"
    ) { (list) throws(UsageError) in
        var sizes: [Int] = []
        for part in list.split(separator: ",") {
            guard let size = Self.count(String(part)), size >= 10 else {
                throw UsageError("--profiles: \"\(part)\" is not a count of at least 10 (10k, 100k, 1M)")
            }
            sizes.append(size)
        }
        guard !sizes.isEmpty else { throw UsageError("--profiles: give at least one size") }
        return sizes
    }
    static let secondsOption = Option(
        name: "seconds", placeholder: "N", help: "measuring time per workload phase (default 4)"
    ) { (text) throws(UsageError) in
        guard let seconds = Double(text), seconds > 0, seconds <= 600 else {
            throw UsageError("--seconds: \"\(text)\" is not a number of seconds in (0, 600]")
        }
        return seconds
    }
    static let jsonSwitch = Switch(name: "json", help: "print the results as JSON instead of a table")
    static let smokeSwitch = Switch(
        name: "smoke", help: "tiny sizes, a few seconds in all: every workload, contender and mode runs once")
    static let onlyOption = Option(
        name: "only", placeholder: "WORKLOAD",
        help: "one of: \(Workload.allCases.map(\.rawValue).joined(separator: ", "))"
    ) { (text) throws(UsageError) in
        guard let workload = Workload(rawValue: text) else {
            throw UsageError(
                "--only: unknown workload \"\(text)\"; one of \(Workload.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        return workload
    }
    static let lockingOption = Option(
        name: "locking", placeholder: "MODE", help: "lmdb, per-transaction or both (default both; see below)"
    ) { (text) throws(UsageError) in
        if text == "both" { return Locking.allCases }
        guard let mode = Locking(rawValue: text) else {
            throw UsageError("--locking: \"\(text)\" is not lmdb, per-transaction or both")
        }
        return [mode]
    }
    static let directoryOption = Option(
        name: "dir", placeholder: "DIR",
        help: "where the stores go (default: a new directory under the temp directory, removed at the end)")

    /// The bench's command line: its flags, help and details.
    static let command = Command(
        name: "tabkeep-bench",
        summary: """
            Measures TabKeep side by side with raw LMDB, SQLite, UserDefaults and JSON files, in one
            process run, interleaved: median and p99 per operation and the ratio to raw LMDB.
            """,
        details: """
            concurrent-edits runs 8 writers in one process, then 4 writer processes (children of the
            bench) on one shared database. s3 syncs through SeaweedFS on loopback (`weed` on PATH, else
            it is skipped, saying so): the one-edit round trip of two stores through one prefix, then
            1,000 profiles × 3 devices in one bucket (20 profiles in --smoke).
            --locking: the locking modes of TabKeep's stores in launch-read, durable-edit,
            concurrent-edits and first-layout, one row per mode (raw LMDB, SQLite, UserDefaults and
            JSON files run once); sync, dump-restore and s3 run in one mode, the one named, or with
            both the default for new stores (TABKEEP_LOCKING, else \(Locking.platformDefault)).
            """,
        syntax: CommandSyntax(flags: [
            .optional(profilesOption), .optional(secondsOption), .switch(jsonSwitch), .switch(smokeSwitch),
            .optional(onlyOption), .optional(lockingOption), .optional(directoryOption),
        ])
    ) { _ in 0 }

    /// The bench's messages on stderr: `tabkeep-bench: error: …`.
    static let diagnostics = Diagnostics(tool: "tabkeep-bench")

    /// `--help`'s text, generated from the declarations.
    static var usage: String { command.help(calledAs: "tabkeep-bench") }

    /// The options of `arguments`; nil when they ask for `--help`. The hidden `--child` flag
    /// hands everything after it to a child run of the bench, unparsed.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options? {
        var options = Options()
        var own = arguments[...]
        if let child = arguments.firstIndex(of: "--child") {
            options.child = Array(arguments[(child + 1)...])
            own = arguments[..<child]
        }
        let parsed = try ParsedArguments(Array(own), syntax: command.syntax)
        if parsed.wantsHelp { return nil }
        if !parsed.positionals.isEmpty { throw UsageError("unknown argument \"\(parsed.positionals[0])\"") }
        options.json = parsed[jsonSwitch]
        options.smoke = parsed[smokeSwitch]
        options.profiles = parsed[profilesOption] ?? options.profiles
        options.seconds = parsed[secondsOption] ?? options.seconds
        options.only = parsed[onlyOption]
        options.lockings = parsed[lockingOption] ?? options.lockings
        options.directory = parsed[directoryOption]
        if options.smoke {
            options.profiles = [300]
            options.seconds = min(options.seconds, 0.25)
        }
        return options
    }

    /// "10k" → 10 000, "1M" → 1 000 000, "2500" → 2 500.
    static func count(_ text: String) -> Int? {
        var digits = Substring(text)
        var scale = 1
        if let last = digits.last {
            if last == "k" || last == "K" {
                scale = 1_000
                digits = digits.dropLast()
            } else if last == "m" || last == "M" {
                scale = 1_000_000
                digits = digits.dropLast()
            }
        }
        guard let value = Int(digits), value > 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: scale)
        return overflow ? nil : product
    }
}

/// The workloads of issues 8, 15 and 24, in the order they run.
enum Workload: String, CaseIterable {
    case launchRead = "launch-read"
    case durableEdit = "durable-edit"
    case concurrentEdits = "concurrent-edits"
    case sync
    case dumpRestore = "dump-restore"
    case firstLayout = "first-layout"
    case s3
}
