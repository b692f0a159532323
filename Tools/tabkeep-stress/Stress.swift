import Foundation
import LMDBKit
import TabKeep
import TabKeepSync

/// The modes a test runs this driver in. Each prints one line per thing the parent must know
/// (one `write(2)` per line, so a kill never leaves half a line that looks whole).
enum Stress {
    static let usage = """
        usage: tabkeep-stress MODE STORE [...]
          edit STORE [--durability full|metaAsync] [--seed N] [--profiles N] [--prefix P]
          read STORE
          restore STORE DUMPFILE
          apply STORE MESSAGEFILE
          hold-reader STORE
          read-only STORE --profile P --badge N
          fill-disk STORE
          overwrite STORE --commits N [--coordination off]
          snapshot-reader STORE --hold-ms N [--coordination off]
          contend STORE --tab TAB [--seed N]
          commits STORE [--durability full|metaAsync|deferred] [--edits N] [--profile P] [--sync yes]
        """

    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 2 else {
            Line.error(usage)
            return 2
        }
        let options = Options(arguments.dropFirst(2))
        let store = arguments[1]
        do {
            switch arguments[0] {
            case "edit":
                var loop = try EditLoop(store: store, options: options)
                return try loop.run()
            case "read": return try ReadLoop(store: store).run()
            case "restore": return try OneShot.restore(store: store, dump: options.positional(0))
            case "apply": return try OneShot.apply(store: store, message: options.positional(0))
            case "hold-reader": return try OneShot.holdReader(store: store)
            case "read-only": return try OneShot.readOnly(store: store, options: options)
            case "fill-disk": return try OneShot.fillDisk(store: store)
            case "overwrite": return try Snapshot.overwrite(store: store, options: options)
            case "snapshot-reader": return try Snapshot.read(store: store, options: options)
            case "commits": return try Commits.run(store: store, options: options)
            case "contend": return try Contend.run(store: store, options: options)
            case "migrate": return try Migrate.run(directory: store, fixture: options.positional(0))
            default:
                Line.error(usage)
                return 2
            }
        } catch {
            Line.error("tabkeep-stress: \(error)")
            return 1
        }
    }
}

/// `--name value` pairs and positionals, as given.
struct Options {
    private var values: [String: String] = [:]
    private var positionals: [String] = []

    init(_ arguments: ArraySlice<String>) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            if argument.hasPrefix("--") {
                values[String(argument.dropFirst(2))] = iterator.next() ?? ""
            } else {
                positionals.append(argument)
            }
        }
    }

    func value(_ name: String) -> String? { values[name] }

    func positional(_ index: Int) throws -> String {
        guard index < positionals.count else { throw StressError("missing argument \(index + 1)") }
        return positionals[index]
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
