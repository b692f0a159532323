import Foundation
import TabKeepTestSupport
import Testing

@Suite("tabkeep sync --folder: the per-device log in a shared folder")
struct FolderSyncTests {
    /// The `show --json` of every (profile, store) pair, by store.
    private func shown(_ stores: [String], profiles: [String]) throws -> [[String]] {
        try stores.map { store in
            try profiles.map { try Tool.ok(["show", store, "--profile", $0, "--json"]) }
        }
    }

    @Test func threeStoresSyncingThroughOneFolderConverge() throws {
        let directory = TemporaryDirectory()
        let folder = directory.sub("shared")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let stores = [directory.sub("phone"), directory.sub("tablet"), directory.sub("laptop")]
        try Tool.ok([
            "set", stores[0], "--profile", "alice", "--catalog", appTabsSpec, "--move", "settings=1",
        ])
        try Tool.ok([
            "set", stores[1], "--profile", "alice", "--catalog", appTabsSpec, "--badge-add", "inbox=2",
        ])
        try Tool.ok(["set", stores[2], "--profile", "bob", "--catalog", appTabsSpec, "--select", "help"])
        let before = try shown(stores, profiles: ["alice", "bob"])
        #expect(before[0] != before[1] && before[1] != before[2])

        // The first round: each store applies the files written before it; the second brings the rest.
        var outputs: [String] = []
        for _ in 0..<2 {
            for store in stores {
                let result = try Tool.run(["sync", store, "--folder", folder])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.isEmpty, "no warnings: \(result.stderr)")
                outputs.append(result.stdout)
            }
        }
        #expect(outputs[0].hasPrefix("wrote ") && !outputs[0].contains("applied"))
        #expect(outputs[2].contains("applied ") && outputs[2].contains("documents changed"))

        let after = try shown(stores, profiles: ["alice", "bob"])
        #expect(after[0] == after[1] && after[1] == after[2])
        #expect(after[0][0].contains("\"order\":[\"home\",\"settings\",\"inbox\""))
        #expect(after[0][0].contains("\"badges\":{\"inbox\":2}"))
        #expect(after[0][1].contains("\"selected\":\"help\""))
        for store in stores { #expect(try Tool.ok(["verify", store]).hasPrefix("ok")) }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(files.count == 3 && files.allSatisfy { $0.hasSuffix(".tkdelta") }, "\(files)")
    }

    @Test func aGarbageFileIsReportedOnStderrAndTheSyncStillSucceeds() throws {
        let directory = TemporaryDirectory()
        let folder = directory.sub("shared")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let (mine, other) = (directory.sub("mine"), directory.sub("other"))
        try Tool.ok(["set", other, "--profile", "alice", "--catalog", appTabsSpec, "--select", "library"])
        try Tool.ok(["set", mine, "--profile", "bob", "--catalog", appTabsSpec])
        try Tool.ok(["sync", other, "--folder", folder])
        let garbage = "0000000000000bad.tkdelta"
        let bytes = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + garbage))

        let result = try Tool.run(["sync", mine, "--folder", folder])
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n")
        #expect(warnings.count == 1, "\(result.stderr)")
        #expect(
            warnings.first?.hasPrefix("tabkeep: warning: skipped \(garbage): ") == true, "\(result.stderr)")
        #expect(result.stdout.contains("applied ") && result.stdout.contains("1 files skipped"))
        // The good file was applied; the bad one is left for the next sync to try again.
        let alice = try Tool.ok(["show", mine, "--profile", "alice", "--json"])
        #expect(alice.contains("\"selected\":\"library\""))
        #expect(FileManager.default.fileExists(atPath: folder + "/" + garbage))
        #expect(try Tool.run(["sync", mine, "--folder", folder]).stderr.contains("skipped \(garbage)"))
    }

    @Test func aMissingFolderOrStoreFailsWithExitOne() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", appTabsSpec])
        let missing = try Tool.run(["sync", store, "--folder", directory.sub("nowhere")])
        #expect(missing.status == 1 && missing.stderr.hasPrefix("tabkeep: error: "))
        #expect(missing.stderr.contains("not a directory"))
        #expect(!FileManager.default.fileExists(atPath: directory.sub("nowhere")))
        let noStore = try Tool.run(["sync", directory.sub("none"), "--folder", directory.path])
        #expect(noStore.status == 1 && noStore.stderr.contains("no store at"))
    }
}
