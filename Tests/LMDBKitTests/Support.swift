import Foundation
import LMDBKit
import TabKeepTestSupport

extension String {
    var bytes: [UInt8] { Array(utf8) }
}

/// Runs a program and returns its exit status and standard output.
func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Whether lmdb-utils on PATH (`mdb_load`, `mdb_dump`) run on the same LMDB as LMDBKit, so they
/// can share a live environment's `lock.mdb` with it. Not so in the Apple manifest branch, where
/// LMDBKit's LMDB is compiled from source and the tools are Debian's: the tests that run a tool
/// beside an open environment are left out there.
let lmdbUtilitiesShareOurLMDB: Bool = {
    guard let stat = which("mdb_stat"), let (status, output) = try? run(stat, ["-V"]), status == 0 else {
        return false
    }
    func release(_ version: String) -> Substring { version.prefix { $0 != ":" } }
    return release(output) == release(Environment.libraryVersion)
}()
