import Foundation
import TabKeep
import ToolSupport

/// `tabkeep backup`: a hot copy of a store.
enum BackupCommand {
    static let destination = Positional("DEST", help: "an empty or new directory for the copy")
    static let compact = Switch(name: "compact", help: "leave out free pages")

    static let command = Command(
        name: "backup",
        summary: "Copy a store while it is in use into DEST (an empty or new directory).",
        details: """
            A consistent snapshot of the last commit before the copy began, taken with LMDB's hot
            backup (mdb_env_copy2) while apps keep reading and writing. --compact leaves out free
            pages. The copy is marked as a copy: whatever store opens it for writing first takes a
            fresh replica id (the old one stays in `tabkeep stat`'s identity history), so a device
            restored from it never reuses sequence numbers its peers already hold.

            Example:
              tabkeep backup ~/stores/app /backups/app-monday
            """,
        syntax: CommandSyntax(positionals: [Flags.store, destination], flags: [.switch(compact)]), run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let source = arguments.value(of: Flags.store)
        let store = try Stores.readOnly(source)
        let destination = arguments.value(of: Self.destination)
        try store.backup(to: destination, compact: arguments[compact])
        let size =
            (try? FileManager.default.attributesOfItem(atPath: destination + "/data.mdb")[.size] as? Int) ?? 0
        print(
            "backed up \(source) to \(destination) (\(size) bytes\(arguments[compact] ? ", compacted" : ""))"
        )
        return 0
    }
}
