import Foundation
import LMDBKit
import TabKeep
import TabKeepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Crash: a migration to the current schema killed at random instants")
struct MigrationCrashTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let current = UInt64(TabKeepStore.schemaVersion)

    /// Every document, as canonical bytes.
    func documents(_ store: TabKeepStore) throws -> [DocumentKey: [UInt8]] {
        var result: [DocumentKey: [UInt8]] = [:]
        try store.forEachDocument { key, document in result[key] = try document.get().encoded() }
        return result
    }

    /// The `tabkeep-stress migrate` child copies the schema-2 (or schema-3) fixture and opens
    /// each copy for writing, again and again, until it is killed: each kill catches some copy
    /// before, inside or after its migration's one transaction. Every copy must then read as the
    /// fixture's schema or the current one, never anything else, with the fixture's documents and
    /// vectors, and migrate cleanly.
    @Test(arguments: [
        ("schema2-store", UInt64(2)), ("schema3-store", UInt64(3)), ("schema4-store", UInt64(4)),
        ("schema5-store", UInt64(5)),
    ])
    func aKilledMigrationLeavesTheOldSchemaOrTheNew(fixtureName: String, old: UInt64) throws {
        let fixture = Self.fixtures.appendingPathComponent(fixtureName).path
        let reference = TemporaryDirectory()
        let copy = reference.sub("reference")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture + "/data.mdb", toPath: copy + "/data.mdb")
        let (expectedDocuments, expectedVectors) = try {
            let old = try TabKeepStore(path: copy, options: .init(readOnly: true))
            return (try documents(old), try old.versionVectors())
        }()
        var random = SystemRandomNumberGenerator()
        var seen: [UInt64: Int] = [:]
        var caughtOpening = 0
        let kills = killCount(30)
        for round in 0..<kills {
            let directory = TemporaryDirectory()
            let child = try Child(Built.stress, ["migrate", directory.path, fixture], in: directory)
            usleep(UInt32.random(in: 20_000...400_000, using: &random))
            child.kill()
            let lines = child.lines
            let opening = lines.last { $0.hasPrefix("opening ") }
            if let opening, !lines.contains("migrated " + opening.dropFirst("opening ".count)) {
                caughtOpening += 1
            }
            let stores = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasPrefix("store-") }
                .sorted { Int($0.dropFirst(6))! < Int($1.dropFirst(6))! }
            // The last three: the one the kill caught and the two before it.
            for name in stores.suffix(3) {
                let path = directory.sub(name)
                let schema = try Environment.peek(path: path, database: "meta", key: Array("schema".utf8))
                    .map { $0.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
                guard let schema, schema == old || schema == Self.current else {
                    Issue.record("round \(round): \(name) holds schema \(String(describing: schema))")
                    return
                }
                seen[schema, default: 0] += 1
                do {
                    let readOnly = try TabKeepStore(path: path, options: .init(readOnly: true))
                    // Schemas 3 to 5 keep a record per dot, schema 6 none: never some of them.
                    let dotRecords = try readOnly.environment.read { txn in
                        var count = 0
                        try readOnly.forEachDotRecord(txn) { _, _ in
                            count += 1
                            return true
                        }
                        return count
                    }
                    #expect(
                        (dotRecords == 0) == (schema == Self.current),
                        "round \(round): \(name) at schema \(schema) holds \(dotRecords) dot records")
                    #expect(try documents(readOnly) == expectedDocuments, "round \(round): \(name) read-only")
                    #expect(try readOnly.versionVectors() == expectedVectors, "round \(round): \(name)")
                }
                if let problems = try verifyProblems(path, in: directory) {
                    Issue.record("round \(round): \(name) does not verify: \(problems)")
                }
                let migrated = try TabKeepStore(path: path)
                #expect(try documents(migrated) == expectedDocuments, "round \(round): \(name) migrated")
                #expect(try migrated.versionVectors() == expectedVectors, "round \(round): \(name) vectors")
                #expect(try migrated.verify().problems == [], "round \(round): \(name)")
            }
        }
        #expect(seen[Self.current, default: 0] > 0, "no copy was ever migrated: the child did not run")
        report(
            "migration crash from schema \(old): \(kills) kills, stores found at schema \(old): "
                + "\(seen[old, default: 0]), at \(Self.current): \(seen[Self.current, default: 0]); "
                + "\(caughtOpening) kills came between opening and migrated")
    }
}
