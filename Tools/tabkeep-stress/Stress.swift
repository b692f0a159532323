import Foundation
import LMDBKit
import TabKeep
import TabKeepSync
import ToolSupport

/// The modes a test runs this driver in. Each prints one line per thing the parent must know
/// (one `write(2)` per line, so a kill never leaves half a line that looks whole).
enum Stress {
    static let store = Positional("STORE", help: "the store directory")
    static let seed = Option(name: "seed", placeholder: "N", help: "the random seed (default 1)") {
        (text) throws(UsageError) in try number(text, flag: "seed", as: UInt64.self)
    }
    static let coordination = Option(
        name: "coordination", placeholder: "on|off", help: "per-transaction coordination (default on)"
    ) { (text) throws(UsageError) in
        guard text == "on" || text == "off" else {
            throw UsageError("--coordination must be on or off, not \"\(text)\"")
        }
        return text
    }
    static let profile = Option(name: "profile", placeholder: "P", help: "the profile (default p0)") {
        (text) throws(UsageError) in
        do { return try ProfileID(text) } catch { throw UsageError("--profile: \(error)") }
    }

    static let durability = Option(
        name: "durability", placeholder: "full|metaAsync|deferred",
        help: "the commit durability (default full)"
    ) { (text) throws(UsageError) in
        guard let mode = Durability(rawValue: text) else {
            throw UsageError("--durability must be full, metaAsync or deferred, not \"\(text)\"")
        }
        return mode
    }

    /// `--NAME N`, a non-negative whole number.
    static func count(_ name: String, _ help: String) -> Option<Int> {
        Option(name: name, placeholder: "N", help: help) { (text) throws(UsageError) in
            try number(text, flag: name, as: Int.self)
        }
    }

    static func number<Number: FixedWidthInteger>(_ text: String, flag: String, as: Number.Type)
        throws(UsageError) -> Number
    {
        guard let number = Number(text), number >= 0 else {
            throw UsageError("--\(flag): \"\(text)\" is not a whole number")
        }
        return number
    }

    static func mode(
        _ name: String, _ summary: String, positionals: [Positional] = [], flags: [FlagUse] = [],
        run: @escaping @Sendable (_ store: String, _ options: Options) throws -> Int32
    ) -> Command {
        let syntax = CommandSyntax(positionals: [store] + positionals, flags: flags)
        return Command(name: name, summary: summary, details: "", syntax: syntax) { arguments in
            try run(arguments.value(of: store), Options(arguments))
        }
    }

    static func file(_ name: String) -> Positional { Positional(name, help: "the input file") }

    static let tool = CommandLineTool(
        name: "tabkeep-stress",
        overviewHeader: [
            "tabkeep-stress: the child-process driver of Tests/ReliabilityTests; not a user tool."
        ],
        commands: [
            mode(
                "edit", "Edit profiles in a loop, one line per commit.",
                flags: [
                    .optional(durability), .optional(seed),
                    .optional(count("profiles", "how many profiles to edit (default 4)")),
                    .optional(Option(name: "prefix", placeholder: "P", help: "the profiles' name prefix")),
                ]
            ) { store, options in
                var loop = try EditLoop(store: store, options: options)
                return try loop.run()
            },
            mode("read", "Read in a loop, checking every badge.") { store, _ in
                try ReadLoop(store: store).run()
            },
            mode("restore", "Restore a dump, then say so.", positionals: [file("DUMPFILE")]) {
                store, options in
                try OneShot.restore(store: store, dump: options.positional(0))
            },
            mode("apply", "Apply a sync message, then say so.", positionals: [file("MESSAGEFILE")]) {
                store, options in try OneShot.apply(store: store, message: options.positional(0))
            },
            mode(
                "follow", "Watch one badge until it shows a value, then edit it.",
                flags: [.optional(profile), .optional(count("badge", "the badge count to wait for"))]
            ) { store, options in try OneShot.follow(store: store, options: options) },
            mode("hold-reader", "Hold a read transaction open until killed.") { store, _ in
                try OneShot.holdReader(store: store)
            },
            mode(
                "read-only", "Open read-only and check one badge.",
                flags: [.optional(profile), .optional(count("badge", "the badge count expected"))]
            ) { store, options in try OneShot.readOnly(store: store, options: options) },
            mode("fill-disk", "Write until the disk is full.") { store, _ in
                try OneShot.fillDisk(store: store)
            },
            mode(
                "overwrite", "Overwrite one record in commits.",
                flags: [.optional(count("commits", "how many commits (default 1)")), .optional(coordination)]
            ) { store, options in try Snapshot.overwrite(store: store, options: options) },
            mode(
                "snapshot-reader", "Read one snapshot held for a while.",
                flags: [
                    .optional(count("hold-ms", "how long to hold it, in milliseconds (default 1500)")),
                    .optional(coordination),
                ]
            ) { store, options in try Snapshot.read(store: store, options: options) },
            mode(
                "read-stream", "Keep a read transaction open at every instant, from several threads.",
                flags: [
                    .optional(count("threads", "how many reading threads (default 2)")),
                    .optional(count("hold-ms", "how long each read lasts, in milliseconds (default 20)")),
                    .optional(
                        count("for-ms", "how long the stream goes on, in milliseconds (default 20000)")),
                    .optional(coordination),
                ]
            ) { store, options in try Snapshot.stream(store: store, options: options) },
            mode(
                "contend", "Move one tab in a loop against other writers.",
                flags: [
                    .optional(
                        Option(name: "tab", placeholder: "TAB", help: "the tab to move (default home)") {
                            (text) throws(UsageError) in
                            do { return try TabID(text) } catch { throw UsageError("--tab: \(error)") }
                        }),
                    .optional(seed),
                ]
            ) { store, options in try Contend.run(store: store, options: options) },
            mode(
                "commits", "Make some edits, one commit each, and print the commit count.",
                flags: [
                    .optional(durability),
                    .optional(count("edits", "how many edits (default 3)")), .optional(profile),
                    .optional(
                        Option(
                            name: "sync", placeholder: "yes", help: "flush with Environment.sync() at the end"
                        ) {
                            (text) throws(UsageError) in
                            guard text == "yes" else { throw UsageError("--sync takes yes, not \"\(text)\"") }
                            return text
                        }),
                ]
            ) { store, options in try Commits.run(store: store, options: options) },
            mode(
                "migrate", "Copy a schema-1 or -2 store over and over, opening each copy for writing.",
                positionals: [file("FIXTURE")]
            ) { store, options in try Migrate.run(directory: store, fixture: options.positional(0)) },
        ],
        helpExample: "edit")

    static func run(_ arguments: [String]) -> Int32 { tool.run(arguments) }
}

/// A mode's parsed flags, for the mode files that read them by name: every name is declared by
/// the mode (reading another traps) and every value was checked when the command line was parsed.
struct Options {
    private let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) { self.arguments = arguments }

    /// The text `--name` was given as (already checked), or nil.
    func value(_ name: String) -> String? { arguments.text(named: name) }

    /// The positional after STORE at `index`.
    func positional(_ index: Int) throws -> String {
        guard index + 1 < arguments.positionals.count else {
            throw StressError("missing argument \(index + 1)")
        }
        return arguments.positionals[index + 1]
    }
}

/// A failure of the driver itself, as a sentence.
struct StressError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Unbuffered output: each line is one `write(2)`, so the parent never reads a line the child
/// had not finished, and nothing waits in a buffer when the child is killed.
enum Line {
    static func out(_ text: String) { write(1, text + "\n") }
    static func error(_ text: String) { write(2, text + "\n") }

    private static func write(_ descriptor: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes {
                Foundation.write(descriptor, $0.baseAddress! + offset, $0.count - offset)
            }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            offset += count
        }
    }
}

/// The catalog and edit every driver and test shares: each edit sets the inbox badge count and
/// the inbox badge text to the same number in one atomic call, so a half-applied edit shows as
/// a count and a text that disagree.
enum Fixture {
    static let badgeTab = try! TabID("inbox")
    static let catalog = try! Catalog(
        ["home", "inbox", "search", "library", "settings"].map { try TabID($0) })

    static func edits(setting value: Int) -> [TabBarEdit] {
        [.setBadge(badgeTab, value), .setBadgeText(badgeTab, String(value))]
    }

    /// The badge a document shows, or nil when count and text disagree (a torn or half edit).
    static func badge(of document: TabBarDocument) -> Int? {
        let layout = document.layout(catalog: catalog)
        let count = layout.badges[badgeTab] ?? 0
        let text = layout.badgeTexts[badgeTab].flatMap { Int($0) } ?? 0
        return count == text ? count : nil
    }
}
