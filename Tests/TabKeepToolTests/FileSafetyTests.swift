import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("tabkeep files: created private, never through a link")
struct FileSafetyTests {
    /// The file type and permission bits of `path` itself (a link is not followed).
    func mode(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode : nil
    }

    @Test func dumpNeverWritesThroughALinkPlantedWhereItsTemporaryFileMightGo() throws {
        let directory = try TemporaryDirectory()
        let store = directory("store")
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", sevenTabs, "--select", "inbox"])
        let victim = directory("victim")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: victim))
        let output = directory("out.tkdump")
        // A predictable temporary name (FILE.tmp-<pid>) would be one of these: plant a link at each
        // name the next processes may get, and one at the output itself.
        var planted: [String] = []
        if let text = try? String(contentsOfFile: "/proc/sys/kernel/ns_last_pid", encoding: .utf8),
            let last = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            for pid in last + 1...last + 256 {
                planted.append(output + ".tmp-\(pid)")
                try FileManager.default.createSymbolicLink(atPath: planted.last!, withDestinationPath: victim)
            }
        }
        try FileManager.default.createSymbolicLink(atPath: output, withDestinationPath: victim)
        try Tool.ok(["dump", store, "--output", output])
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")
        let outputMode = try #require(mode(output))
        #expect(outputMode & S_IFMT == S_IFREG, "the dump replaced the link with a regular file")
        #expect(outputMode & 0o777 == 0o600)
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("\"selected\":\"inbox\""))
        for link in planted { #expect(mode(link).map { $0 & S_IFMT } == S_IFLNK, "\(link) untouched") }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(left.filter { $0.hasPrefix(".out.tkdump") }.isEmpty, "no temporary file is left")
    }

    @Test func backupIsPrivateAndRefusesALinkedDestination() throws {
        let directory = try TemporaryDirectory()
        let store = directory("store")
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", sevenTabs, "--select", "inbox"])
        try Tool.ok(["backup", store, directory("copy")])
        #expect(mode(directory("copy/data.mdb")).map { $0 & 0o777 } == 0o600)
        try FileManager.default.createDirectory(
            atPath: directory("elsewhere"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
            atPath: directory("linked"), withDestinationPath: directory("elsewhere"))
        let result = try Tool.run(["backup", store, directory("linked")])
        #expect(result.status == 1 && result.stderr.contains("symbolic link"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory("elsewhere")).isEmpty)
    }
}
