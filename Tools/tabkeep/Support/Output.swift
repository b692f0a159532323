import Foundation
import LMDBKit
import TabKeep

/// Where the tool writes: data on stdout, messages on stderr.
enum Output {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("tabkeep: error: \(message)\n".utf8))
    }

    /// A problem that did not stop the command: `tabkeep: warning: …` on stderr.
    static func warning(_ message: String) {
        FileHandle.standardError.write(Data("tabkeep: warning: \(message)\n".utf8))
    }

    static func note(_ message: String) {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }

    /// Whether stderr is a terminal (progress is drawn only then).
    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// A JSON string literal.
    static func json(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    static func json(_ tabs: [TabID]) -> String {
        "[" + tabs.map { json($0.rawValue) }.joined(separator: ",") + "]"
    }
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
