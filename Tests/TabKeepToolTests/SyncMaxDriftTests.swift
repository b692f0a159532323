import Foundation
import TabKeep
import TabKeepSync
import TabKeepTestSupport
import Testing

/// `tabkeep sync --max-drift`: the README's clock guard says a folder file stamped past
/// `--max-drift` (default 5 minutes) is refused whole; the flag moves that limit both ways.
@Suite("tabkeep sync --max-drift: the clock guard's limit, tighter and looser")
struct SyncMaxDriftTests {
    static let device = ReplicaID(rawValue: 0xF0F0)

    /// Writes into `folder` the file of a device whose clock runs `ahead` milliseconds fast: one
    /// document of profile "future", its help tab moved first. Returns the file's name.
    func writeFileFromTheFuture(ahead: UInt64, in folder: String) throws -> String {
        let stamp = Stamp(milliseconds: HybridLogicalClock.wallMilliseconds() + ahead, counter: 0)
        var device = Replica(id: Self.device, clock: HybridLogicalClock(last: stamp))
        var document = TabBarDocument()
        let catalog = try Catalog(["home", "inbox", "help"].map { try TabID($0) })
        try document.apply(.move(try TabID("help"), to: 0), catalog: catalog, by: &device)
        let future = try ProfileID("future")
        let message = SyncMessage(
            kind: .reply, sender: device.id, scope: .all,
            sections: [
                ProfileDelta(
                    profile: future, vector: VersionVector([device.id: device.sequence]),
                    base: VersionVector(),
                    documents: [
                        DocumentDelta(key: DocumentKey(profile: future, bar: .main), document: document)
                    ])
            ])
        let name = FolderTransport.fileName(for: Self.device)
        try Data(message.encoded()).write(to: URL(fileURLWithPath: folder + "/" + name))
        return name
    }

    /// A store with one profile of its own and an empty shared folder.
    func storeAndFolder(_ directory: TemporaryDirectory) throws -> (store: String, folder: String) {
        let (store, folder) = (directory.sub("store"), directory.sub("shared"))
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", appTabsSpec, "--select", "inbox"])
        return (store, folder)
    }

    /// Whether the store holds profile "future" (the device's document was applied).
    func holdsTheFutureProfile(_ store: String) throws -> Bool {
        try Tool.ok(["profiles", store]).split(separator: "\n").contains { $0.hasPrefix("future") }
    }

    @Test func aTighterLimitRefusesAFileTheDefaultAccepts() throws {
        let directory = TemporaryDirectory()
        let (store, folder) = try storeAndFolder(directory)
        let name = try writeFileFromTheFuture(ahead: 120_000, in: folder)
        let tight = try Tool.run(["sync", store, "--folder", folder, "--max-drift", "30s"])
        #expect(tight.status == 0, "\(tight.stderr)")
        #expect(
            tight.stderr.hasPrefix(
                "tabkeep: warning: skipped \(name): sync message refused: entries are stamped")
                && tight.stderr.contains("(the limit is 30000 ms)"), "\(tight.stderr)")
        #expect(try !holdsTheFutureProfile(store))
        // Two minutes ahead is within the default five.
        let byDefault = try Tool.run(["sync", store, "--folder", folder])
        #expect(byDefault.status == 0 && byDefault.stderr.isEmpty, "\(byDefault.stderr)")
        #expect(byDefault.stdout.contains("applied \(name) from replica \(Self.device): 1 documents changed"))
        #expect(try holdsTheFutureProfile(store))
    }

    @Test func aLooserLimitAcceptsAFileTheDefaultRefuses() throws {
        let directory = TemporaryDirectory()
        let (store, folder) = try storeAndFolder(directory)
        let name = try writeFileFromTheFuture(ahead: 3_600_000, in: folder)
        let byDefault = try Tool.run(["sync", store, "--folder", folder])
        #expect(byDefault.status == 0, "\(byDefault.stderr)")
        #expect(
            byDefault.stderr.hasPrefix(
                "tabkeep: warning: skipped \(name): sync message refused: entries are stamped")
                && byDefault.stderr.contains("(the limit is 300000 ms)"), "\(byDefault.stderr)")
        #expect(try !holdsTheFutureProfile(store))
        let loose = try Tool.run(["sync", store, "--folder", folder, "--max-drift", "2h"])
        #expect(loose.status == 0 && loose.stderr.isEmpty, "\(loose.stderr)")
        #expect(loose.stdout.contains("applied \(name) from replica \(Self.device): 1 documents changed"))
        #expect(try holdsTheFutureProfile(store))
    }

    @Test func aBadMaxDriftIsAUsageErrorThatNamesTheValue() throws {
        let directory = TemporaryDirectory()
        let (store, folder) = try storeAndFolder(directory)
        _ = try writeFileFromTheFuture(ahead: 3_600_000, in: folder)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))
        for value in ["soon", "-5m", "10d", ""] {
            let bad = try Tool.run(["sync", store, "--folder", folder, "--max-drift", value])
            #expect(bad.status == 2, "\(value): \(bad.stderr)")
            // Exit 2 alone is what an unknown flag gives too: the message must be about the value.
            #expect(
                bad.stderr.hasPrefix("tabkeep: error: --max-drift: \"\(value)\" is not a duration"),
                "\(value): \(bad.stderr)")
            #expect(bad.stdout.isEmpty, "\(value): nothing ran")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb")) == bytes)
        #expect(try !holdsTheFutureProfile(store))
    }
}
