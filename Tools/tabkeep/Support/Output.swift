import Foundation
import LMDBKit
import TabKeep
import ToolSupport

/// Where the tool writes: data on stdout, messages on stderr.
enum Output {
    static let diagnostics = Diagnostics(tool: "tabkeep")

    static func error(_ message: String) { diagnostics.error(message) }

    /// A problem that did not stop the command: `tabkeep: warning: …` on stderr.
    static func warning(_ message: String) { diagnostics.warning(message) }

    static func note(_ message: String) { diagnostics.note(message) }

    /// Whether stderr is a terminal (progress is drawn only then).
    static var stderrIsTerminal: Bool { isatty(2) == 1 }
}

extension JSON {
    /// Tab ids as an array of strings.
    static func tabs(_ tabs: [TabID]) -> JSON { .strings(tabs.map(\.rawValue)) }
}

/// Opening stores from a path argument.
enum Stores {
    /// Opens an existing store; a path with no store is an error, never a new empty store.
    static func existing(_ path: String) throws -> TabKeepStore {
        guard FileManager.default.fileExists(atPath: path + "/data.mdb") else {
            throw ToolError(message: "no store at \(path)")
        }
        return try TabKeepStore(path: path)
    }

    /// Opens an existing store read-only (`MDB_RDONLY`): for commands that only look, so they never
    /// write — not even to create a missing record, migrate a schema or repair damage.
    static func readOnly(_ path: String) throws -> TabKeepStore {
        guard FileManager.default.fileExists(atPath: path + "/data.mdb") else {
            throw ToolError(message: "no store at \(path)")
        }
        return try TabKeepStore(path: path, options: .init(readOnly: true))
    }

    /// Opens the store at `path`, creating it if missing, in `locking` mode when it creates it
    /// (nil: the default); an existing store in the other mode is refused.
    static func creating(_ path: String, locking: Locking? = nil) throws -> TabKeepStore {
        try TabKeepStore(path: path, options: .init(locking: locking))
    }
}
