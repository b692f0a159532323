import Foundation
import TabKeep

/// `tabkeep backup`: a hot copy of a store.
enum BackupCommand {
    static let spec = CommandSpec(
        name: "backup", usage: "STORE DEST [--compact]",
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
        positionals: ["STORE", "DEST"], flags: [FlagSpec(name: "compact")], run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let store = try Stores.readOnly(arguments.positionals[0])
        let destination = arguments.positionals[1]
        try store.backup(to: destination, compact: arguments.has("compact"))
        let size =
            (try? FileManager.default.attributesOfItem(atPath: destination + "/data.mdb")[.size] as? Int) ?? 0
        print(
            "backed up \(arguments.positionals[0]) to \(destination) (\(size) bytes\(arguments.has("compact") ? ", compacted" : ""))"
        )
        return 0
    }
}
