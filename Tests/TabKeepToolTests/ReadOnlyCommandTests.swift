import Foundation
import LMDBKit
import Testing

/// Read-only work never writes: the commands that only look open the store `MDB_RDONLY`, so a
/// healthy store, a store whose `meta` is gone and a store missing a database all keep their
/// `data.mdb` byte for byte, and damage is reported, never repaired.
@Suite("Read-only commands never write")
struct ReadOnlyCommandTests {
    /// The read-only commands, each given a store path.
    static func commands(_ store: String, _ output: String) -> [[String]] {
        [
            ["show", store, "--profile", "alice"], ["show", store, "--profile", "alice", "--json"],
            ["profiles", store], ["dump", store], ["verify", store], ["stat", store],
            ["stat", store, "--json"],
            ["explain", store, "--profile", "alice"], ["backup", store, output],
        ]
    }

    struct Files: Equatable {
        var data: Data
        var lockSize: Int
        var modified: Date
        var names: [String]
    }

    func files(_ store: String) throws -> Files {
        let attributes = try FileManager.default.attributesOfItem(atPath: store + "/data.mdb")
        let lock = try FileManager.default.attributesOfItem(atPath: store + "/lock.mdb")
        return Files(
            data: try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb")),
            lockSize: (lock[.size] as? Int) ?? -1, modified: attributes[.modificationDate] as! Date,
            names: try FileManager.default.contentsOfDirectory(atPath: store).sorted())
    }

    /// A store with two profiles, made by the tool.
    func healthyStore(_ path: String) throws {
        try Tool.ok([
            "set", path, "--profile", "alice", "--catalog", "home:fixed,inbox,search,library", "--move",
            "library=1",
        ])
        try Tool.ok(["set", path, "--profile", "bob", "--badge-add", "inbox=2"])
    }

    func runEveryCommand(
        on store: String, in directory: TemporaryDirectory, expecting status: Int32, _ what: String
    )
        throws -> [String]
    {
        var messages: [String] = []
        for (index, command) in Self.commands(store, directory("copy-\(what)-\(UUID().uuidString)"))
            .enumerated()
        {
            let before = try files(store)
            let result = try Tool.run(command)
            #expect(
                result.status == status,
                "\(what): tabkeep \(command.joined(separator: " ")): \(result.stderr)")
            #expect(
                try files(store) == before,
                "\(what): tabkeep \(command[0]) (\(index)) changed the store's files")
            messages.append(result.stderr + result.stdout)
        }
        return messages
    }

    /// A copy of the store's records, record by record, without some databases, or with one empty:
    /// the damage a bad tool or a half-restored file leaves.
    func copy(from source: String, to target: String, leavingOut: Set<String>, emptying: String?) throws {
        let names = ["meta", "documents", "dots", "versions", "catalogs", "changes"]
        do {
            let from = try Environment.open(path: source, configuration: Configuration(databases: names))
            let kept = names.filter { !leavingOut.contains($0) }
            let to = try Environment.open(path: target, configuration: Configuration(databases: kept))
            for name in kept where name != emptying {
                var records: [([UInt8], [UInt8])] = []
                let database = try from.database(name)
                try from.read { txn in
                    try txn.forEach(database) { key, value in
                        records.append((Array(key), Array(value)))
                        return true
                    }
                }
                let destination = try to.database(name)
                try to.write { txn in
                    for (key, value) in records { try txn.put(destination, key: key, value: value) }
                }
            }
        }
    }

    @Test func aHealthyStoreIsLeftByteForByte() throws {
        let directory = try TemporaryDirectory()
        let store = directory("healthy")
        try healthyStore(store)
        _ = try runEveryCommand(on: store, in: directory, expecting: 0, "healthy")
    }

    @Test func aStoreWhoseMetaIsGoneIsReportedNotGivenANewIdentity() throws {
        let directory = try TemporaryDirectory()
        let store = directory("no-meta")
        try healthyStore(store)
        #expect(try Tool.run(["verify", store]).status == 0)
        try copy(from: store, to: directory("emptied"), leavingOut: [], emptying: "meta")
        try FileManager.default.removeItem(atPath: store)
        try FileManager.default.moveItem(atPath: directory("emptied"), toPath: store)
        let messages = try runEveryCommand(on: store, in: directory, expecting: 1, "no meta")
        #expect(messages.allSatisfy { $0.contains("meta holds no schema or replica id") }, "\(messages)")
    }

    @Test func aStoreMissingADatabaseIsReportedNotRepaired() throws {
        let directory = try TemporaryDirectory()
        let healthy = directory("healthy")
        try healthyStore(healthy)
        let store = directory("no-dots")
        try copy(from: healthy, to: store, leavingOut: ["dots"], emptying: nil)
        let messages = try runEveryCommand(on: store, in: directory, expecting: 1, "no dots")
        #expect(messages.allSatisfy { $0.contains("the store has no \"dots\" database") }, "\(messages)")
    }
}
