import Foundation
import LMDBKit

/// The command line, parsed by hand: no argument-parser package can be fetched here.
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

    static let usage = """
        usage: tabkeep-bench [--profiles 10k,100k,1M] [--seconds N] [--json] [--smoke]
                             [--only WORKLOAD] [--locking MODE] [--dir DIR] [--help]

        Measures TabKeep side by side with raw LMDB, SQLite, UserDefaults and JSON files, in one
        process run, interleaved: median and p99 per operation and the ratio to raw LMDB.
        concurrent-edits runs 8 writers in one process, then 4 writer processes (children of the
        bench) on one shared database. s3 syncs through SeaweedFS on loopback (`weed` on PATH, else
        it is skipped, saying so): the one-edit round trip of two stores through one prefix, then
        1,000 profiles × 3 devices in one bucket (20 profiles in --smoke).

          --profiles LIST  store sizes for launch-read (default 10k,100k,1M; k and M allowed)
          --seconds N      measuring time per workload phase (default 4)
          --json           print the results as JSON instead of a table
          --smoke          tiny sizes, a few seconds in all: every workload, contender and mode runs once
          --only WORKLOAD  one of: \(Workload.allCases.map(\.rawValue).joined(separator: ", "))
          --locking MODE   lmdb, per-transaction or both (default both): the locking modes of
                           TabKeep's stores in launch-read, durable-edit, concurrent-edits and
                           first-layout, one row per mode (raw LMDB, SQLite, UserDefaults and
                           JSON files run once); sync, dump-restore and s3 run in one mode, the
                           one named, or with both the default for new stores (TABKEEP_LOCKING, else
                           \(Locking.platformDefault))
          --dir DIR        where the stores go (default: a new directory under the temp directory,
                           removed at the end)
        """

    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(_ flag: String) throws(UsageError) -> String {
            guard let next = rest.popFirst(), !next.hasPrefix("--") else {
                throw UsageError("\(flag) needs a value")
            }
            return next
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--help", "-h": throw UsageError(nil)
            case "--json": options.json = true
            case "--smoke": options.smoke = true
            case "--profiles":
                let list = try value(argument)
                var sizes: [Int] = []
                for part in list.split(separator: ",") {
                    guard let size = Self.count(String(part)), size >= 10 else {
                        throw UsageError(
                            "--profiles: \"\(part)\" is not a count of at least 10 (10k, 100k, 1M)")
                    }
                    sizes.append(size)
                }
                guard !sizes.isEmpty else { throw UsageError("--profiles: give at least one size") }
                options.profiles = sizes
            case "--seconds":
                let text = try value(argument)
                guard let seconds = Double(text), seconds > 0, seconds <= 600 else {
                    throw UsageError("--seconds: \"\(text)\" is not a number of seconds in (0, 600]")
                }
                options.seconds = seconds
            case "--only":
                let text = try value(argument)
                guard let workload = Workload(rawValue: text) else {
                    throw UsageError(
                        "--only: unknown workload \"\(text)\"; one of \(Workload.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                options.only = workload
            case "--locking":
                let text = try value(argument)
                if text == "both" {
                    options.lockings = Locking.allCases
                } else if let mode = Locking(rawValue: text) {
                    options.lockings = [mode]
                } else {
                    throw UsageError("--locking: \"\(text)\" is not lmdb, per-transaction or both")
                }
            case "--dir": options.directory = try value(argument)
            case "--child":
                options.child = Array(rest)
                rest = []
            default: throw UsageError("unknown argument \"\(argument)\"")
            }
        }
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

/// A bad command line; a nil message asks for the usage text alone.
struct UsageError: Error {
    var message: String?
    init(_ message: String?) { self.message = message }
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
