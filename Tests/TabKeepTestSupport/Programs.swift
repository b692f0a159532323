import Foundation

/// The path of a program on `PATH` (lmdb-utils' `mdb_stat`, say), or nil.
package func which(_ name: String) -> String? {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}
