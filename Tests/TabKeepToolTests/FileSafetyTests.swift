import Foundation
import TabKeepTestSupport
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
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", appTabsSpec, "--select", "inbox"])
        let victim = directory.sub("victim")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: victim))
        let output = directory.sub("out.tkdump")
        try FileManager.default.createSymbolicLink(atPath: output, withDestinationPath: victim)
        // The temporary name is random (`.out.tkdump.tmp-<hex>`), so no link can wait there: strace
        // shows instead that it is opened exclusive, not through a link, and private.
        let trace = directory.sub("trace")
        let straced = try which("strace").map { strace in
            try Tool.run(
                [
                    "-f", "-qq", "-o", trace, "-e", "trace=open,openat", Tool.binary, "dump", store,
                    "--output", output,
                ],
                executable: strace)
        }
        if straced == nil { try Tool.ok(["dump", store, "--output", output]) }
        #expect(straced.map { $0.status == 0 } ?? true, "\(straced?.stderr ?? "")")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")
        let outputMode = try #require(mode(output))
        #expect(outputMode & S_IFMT == S_IFREG, "the dump replaced the link with a regular file")
        #expect(outputMode & 0o777 == 0o600)
        // Dump version 3 has no layout: the selection is its entry's value.
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("{\"tab\":\"inbox\"}"))
        if straced != nil {
            let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            let opens = calls.filter { $0.contains("/.out.tkdump.tmp-") }
            #expect(
                !opens.isEmpty,
                "no open of a .out.tkdump.tmp-<random> file:\n\(calls.joined(separator: "\n"))")
            for call in opens {
                #expect(
                    ["O_CREAT", "O_EXCL", "O_NOFOLLOW", "0600"].allSatisfy { call.contains($0) },
                    "the temporary file is not opened exclusive, without following links, mode 0600: \(call)")
            }
        } else {
            #if os(Linux)
                Issue.record("strace is missing: Tools/setup.sh installs it (Debian package strace)")
            #endif
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(left.filter { $0.hasPrefix(".out.tkdump") }.isEmpty, "no temporary file is left")
    }

    @Test func backupIsPrivateAndRefusesALinkedDestination() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", appTabsSpec, "--select", "inbox"])
        try Tool.ok(["backup", store, directory.sub("copy")])
        #expect(mode(directory.sub("copy/data.mdb")).map { $0 & 0o777 } == 0o600)
        try FileManager.default.createDirectory(
            atPath: directory.sub("elsewhere"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
            atPath: directory.sub("linked"), withDestinationPath: directory.sub("elsewhere"))
        let result = try Tool.run(["backup", store, directory.sub("linked")])
        #expect(result.status == 1 && result.stderr.contains("symbolic link"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.sub("elsewhere")).isEmpty)
    }
}
