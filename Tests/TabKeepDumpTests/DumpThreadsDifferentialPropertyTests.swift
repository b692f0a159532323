import Foundation
import LMDBKit
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepDump

/// A version 3 dump transcodes its documents on two threads, a batch each; its slow twin, on
/// one. Over random stores of a few to a few thousand documents (so batches split anywhere),
/// whole or filtered to some profiles, and with stored documents corrupted at random, both hand
/// `write` the same bytes (chunks cut where each likes) and end with the same count or the same
/// error: after a bad document, what came before it, and nothing after.
@Suite("Dump: two transcoding threads against one")
struct DumpThreadsDifferentialPropertyTests {
    static let seed: UInt64 = 0xD0_3B7E
    static let replay = replayLine(seed: seed, filter: "DumpThreadsDifferentialPropertyTests")

    let directory = TemporaryDirectory()

    /// What a dump handed over and how it ended.
    struct Outcome: Equatable, CustomStringConvertible {
        var bytes: [UInt8]
        var end: String

        var description: String { "\(bytes.count) bytes, \(end)" }
    }

    static func dump(_ store: TabKeepStore, threads: Int, profiles: Set<ProfileID>?) -> Outcome {
        var bytes: [UInt8] = []
        do {
            let records = try store.dump(
                profiles: profiles, milliseconds: 1_764_000_000_000, formatVersion: 3, threads: threads
            ) { bytes += $0 }
            return Outcome(bytes: bytes, end: "\(records) records")
        } catch {
            return Outcome(bytes: bytes, end: "error: \(error)")
        }
    }

    /// Both ways agree on `store`; returns the two-thread outcome.
    @discardableResult
    static func agree(_ store: TabKeepStore, profiles: Set<ProfileID>?, _ context: String) -> Outcome {
        let one = dump(store, threads: 1, profiles: profiles)
        let two = dump(store, threads: 2, profiles: profiles)
        #expect(one == two, "\(context): one thread \(one), two threads \(two); \(replay)")
        return two
    }

    /// Random stored bytes for a document: garbage, a valid document cut short, or one byte of
    /// it changed.
    static func corruption(of bytes: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        switch random.next() % 3 {
        case 0:
            return (0..<Int(random.next() % 12)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        case 1:
            return Array(bytes.prefix(Int(random.next() % UInt64(max(1, bytes.count)))))
        default:
            var changed = bytes
            if !changed.isEmpty {
                changed[Int(random.next() % UInt64(changed.count))] ^= UInt8(1 + random.next() % 255)
            }
            return changed
        }
    }

    @Test func bothWaysHandOverTheSameChunksAndEndTheSameWay() throws {
        var random = SplitMix64(seed: Self.seed)
        for (round, pool) in [3, 40, 300, 700, 1_400].enumerated() {
            let store = try TabKeepStore(
                path: directory.sub("store-\(round)"), options: .init(durability: .deferred))
            try store.registerCatalog(letterTabs)
            try ReplaceStrategyDifferentialPropertyTests.edit(store, &random, count: pool * 2, pool: pool)
            var keys: [DocumentKey] = []
            try store.forEachDocument { key, _ in keys.append(key) }
            let whole = Self.agree(store, profiles: nil, "round \(round), whole")
            #expect(whole.end == "\(keys.count + 1) records", "round \(round): \(whole)")
            let some = Set(keys.map(\.profile).filter { _ in random.next() % 3 == 0 })
            Self.agree(store, profiles: some, "round \(round), \(some.count) profiles")
            Self.agree(store, profiles: [], "round \(round), no profile")
            guard !keys.isEmpty else { continue }
            // A document record whose key does not read (a bar of invalid UTF-8) stops the walk:
            // both ways write what was walked before it, then throw the same error.
            let after = keys[Int(random.next() % UInt64(keys.count))].profile.rawValue
            let badKey = Array(after.utf8) + [0, 0x64, 0xFF]
            try store.environment.write { txn in
                try txn.put(store.documentsDatabase, key: badKey, value: [1, 0])
            }
            let stopped = Self.agree(store, profiles: nil, "round \(round), a bad key after \(after)")
            #expect(stopped.end.hasPrefix("error"), "round \(round): \(stopped)")
            try store.environment.write { txn in _ = try txn.delete(store.documentsDatabase, key: badKey) }
            for corruptions in 1...3 {
                let documents = store.documentsDatabase
                var spoiled: [DocumentKey] = []
                try store.environment.write { txn in
                    for _ in 0..<corruptions {
                        let key = keys[Int(random.next() % UInt64(keys.count))]
                        let recordKey = store.documentRecordKey(key)
                        let bytes = try txn.get(documents, key: recordKey) ?? []
                        try txn.put(documents, key: recordKey, value: Self.corruption(of: bytes, &random))
                        spoiled.append(key)
                    }
                }
                let outcome = Self.agree(store, profiles: nil, "round \(round), \(spoiled) corrupted")
                if !outcome.end.hasPrefix("error") {
                    // A changed byte can leave a valid document (a badge count, say): then the
                    // dump goes through, and both ways must still agree, as checked above.
                    continue
                }
                #expect(outcome.end.contains("profile"), "round \(round): \(outcome)")
            }
        }
    }
}
