import Foundation
import TabKeep
import TabKeepDump
import ToolSupport

/// `tabkeep restore`: a dump back into a store.
enum RestoreCommand {
    static let input = Option(name: "input", placeholder: "FILE", help: "the dump to restore")
    static let mode = Option(
        name: "mode", placeholder: "replace|merge",
        help: "replace (default): hold exactly the dump's documents; merge: merge entry by entry"
    ) { (text) throws(UsageError) in
        guard let mode = ImportMode(rawValue: text) else {
            throw UsageError("--mode must be replace or merge, not \"\(text)\"")
        }
        return mode
    }
    static let dryRun = Switch(
        name: "dry-run", help: "check the dump and report what would change; write nothing")

    static let command = Command(
        name: "restore",
        summary: "Restore a dump into a store (created if missing), checking all of it first.",
        details: """
            Reads the whole dump and checks it (JSON, ids, entries, order, record count, CRC-32)
            before writing anything; a bad dump changes nothing and the error names the line. Then
            writes it in one transaction. --mode replace (the default) leaves the store holding
            exactly the dump's documents; --mode merge merges entry by entry, as a sync would.
            --dry-run only reports what would change. A replace gives the store a fresh replica id
            (the old one stays in `tabkeep stat`'s identity history); either mode raises each
            profile's version vector only as far as the dump's entries prove. A dump stamped more
            than --max-drift ahead of this machine's clock (default 5m; 90s, 10m, 2h, or seconds)
            is refused whole, naming the line. Progress goes to stderr when stderr is a terminal.
            --locking chooses the locking mode of a store the restore creates (an existing store
            keeps its own, and naming the other one is an error).

            Example:
              tabkeep restore ~/stores/new --input app.tkdump
              tabkeep restore ~/stores/app --input laptop.tkdump --mode merge --dry-run
            """,
        syntax: CommandSyntax(
            positionals: [Flags.store],
            flags: [
                .required(input), .optional(mode), .switch(dryRun), .optional(Flags.maxDrift),
                .optional(Flags.locking),
            ]),
        run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let input = try arguments.required(Self.input)
        let mode = arguments[Self.mode] ?? .replace
        let dryRun = arguments[Self.dryRun]
        let locking = arguments[Flags.locking]
        let maxDrift = arguments[Flags.maxDrift] ?? .seconds(300)
        guard FileManager.default.fileExists(atPath: input) else {
            throw ToolError(message: "no file at \(input)")
        }
        let path = arguments.value(of: Flags.store)
        // A store that does not exist yet is created only for a dump that checks whole, so a bad
        // dump leaves no empty store behind. An existing store needs no check first: the restore
        // reads the dump once inside its transaction and aborts it at the first problem.
        if !FileManager.default.fileExists(atPath: path + "/data.mdb") {
            let summary = try DumpReader.check(path: input, maxDrift: maxDrift)
            if dryRun {
                print(
                    "dry run: would add \(summary.documents) documents and \(summary.catalogs.count) catalogs to a new store"
                )
                return 0
            }
        }
        let store = try Stores.creating(path, locking: locking)
        let showProgress = Output.stderrIsTerminal
        let (summary, report) = try store.restore(
            fromDumpAt: input, mode: mode, dryRun: dryRun, maxDrift: maxDrift
        ) {
            read, total in
            guard showProgress else { return }
            let phase = total == 0 ? "checking" : "writing"
            let percent = total == 0 ? "" : " \(read * 100 / max(total, 1))%"
            FileHandle.standardError.write(Data("\r\(phase) \(read) bytes\(percent)   ".utf8))
        }
        if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        let verb = dryRun ? "dry run, would restore" : "restored"
        print(
            "\(verb) \(summary.documents) documents (\(mode.rawValue)): \(report.added) added, "
                + "\(report.changed) changed, \(report.unchanged) unchanged, \(report.removed) removed; "
                + "\(report.catalogs) catalogs")
        return 0
    }
}
