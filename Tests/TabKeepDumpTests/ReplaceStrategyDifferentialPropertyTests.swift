import Foundation
import LMDBKit
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepDump

/// A `replace` restore builds a fresh data file in batches and renames it over the store's; its
/// slow twin imports in one transaction. Over random stores that share history with the dump
/// (so documents are added, changed, left unchanged and removed, one of them stored spoiled in
/// some rounds) and over valid, filtered, reordered, repeated and mutated dumps, both give the
/// same summary and report or the same refusal, and leave byte-identical records but for the fresh replica id each takes; a refused
/// one leaves the store as it was. Each round's batch size is small, so batches split profiles.
@Suite("Replace restore: a fresh file against one transaction")
struct ReplaceStrategyDifferentialPropertyTests {
    static let seed: UInt64 = 0x5A_F11E
    static let replay = replayLine(seed: seed, filter: "ReplaceStrategyDifferentialPropertyTests")

    let lines = DumpReaderTests()
    var directory: TemporaryDirectory { lines.directory }

    static let bars = [BarID.main, bar("side")]

    /// Which thread encodes the fed documents, by round: each way is compared with the twin.
    static let preparations: [ReplacePreparation] = [.balanced, .byFeed, .byWriter]

    /// A few random edits to random profiles of a pool of `pool` (so two stores overlap).
    static func edit(_ store: TabKeepStore, _ random: inout SplitMix64, count: Int, pool: Int) throws {
        let tabs = letterTabs.tabs.map(\.id)
        for _ in 0..<count {
            let user = profile("user-\(random.next() % UInt64(pool))")
            let place = bars[Int(random.next() % 2)]
            let tab = tabs[Int(random.next() % UInt64(tabs.count))]
            let edit: TabBarEdit =
                switch random.next() % 6 {
                case 0: .move(tab, to: Int(random.next() % 5))
                case 1: .setHidden(tab, random.next() % 2 == 0)
                case 2: .setBadge(tab, Int(random.next() % 9))
                case 3: .select(.tab(tab))
                case 4: .setBadgeText(tab, random.next() % 2 == 0 ? "é\(random.next() % 5)" : nil)
                default: .setCustomizableFlag(tab, random.next() % 2 == 0)
                }
            if random.next() % 25 == 0 {
                _ = try store.erase(user)
            } else {
                // An edit the layout refuses (moving a hidden tab, say) is skipped.
                try? store.edit(user, bar: place, catalog: letterTabs, edit)
            }
        }
    }

    /// A byte copy of the store at `source` (its data file alone) at `name`, opened.
    func copy(_ source: TabKeepStore, to name: String) throws -> TabKeepStore {
        try source.environment.sync()
        let path = directory.sub(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: source.environment.path + "/data.mdb", toPath: path + "/data.mdb")
        return try TabKeepStore(path: path, options: .init(durability: .deferred))
    }

    /// Every record but the replica id in `meta`, which each replace takes afresh.
    func records(_ store: TabKeepStore) throws -> [String: [[UInt8]]] {
        var all = try snapshot(store)
        let replica = Array("replica".utf8)
        if let meta = all["meta"] {
            var kept: [[UInt8]] = []
            for pair in stride(from: 0, to: meta.count, by: 2) where meta[pair] != replica {
                kept += [meta[pair], meta[pair + 1]]
            }
            all["meta"] = kept
        }
        return all
    }

    /// The dump of `store` (of `profiles`, when given) as lines.
    func dumpLines(_ store: TabKeepStore, profiles: Set<ProfileID>? = nil, version: Int) throws -> [[UInt8]] {
        var bytes: [UInt8] = []
        try store.dump(profiles: profiles, formatVersion: version) { bytes += $0 }
        return bytes.split(separator: 0x0A, omittingEmptySubsequences: true).map(Array.init)
    }

    /// The indices of the lines that hold documents (not the header, catalogs or trailer).
    static func documentLines(_ lines: [[UInt8]]) -> [Int] {
        lines.indices.filter {
            String(decoding: lines[$0].prefix(24), as: UTF8.self).contains("\"type\":\"document\"")
        }
    }

    /// A base store, a source that shares its history and went on, and the base again edited
    /// on its own: the dump comes from the source, the restores go into copies of the base.
    func stores(_ round: Int, _ random: inout SplitMix64) throws -> (base: TabKeepStore, source: TabKeepStore)
    {
        let base = try TabKeepStore(
            path: directory.sub("base-\(round)"), options: .init(durability: .deferred))
        try base.registerCatalog(letterTabs)
        try Self.edit(base, &random, count: 30, pool: 14)
        let source = try copy(base, to: "source-\(round)")
        try Self.edit(source, &random, count: 25, pool: 20)
        try Self.edit(base, &random, count: 10, pool: 20)
        return (base, source)
    }

    /// The inode of the store's data file: a replacement gives it a new one.
    static func inode(_ store: TabKeepStore) -> UInt64 {
        var status = stat()
        return stat(store.environment.path + "/data.mdb", &status) == 0 ? UInt64(status.st_ino) : 0
    }

    /// Compares what the two ways did to two copies of one store; returns the outcome's name.
    func compare(
        _ slow: TabKeepStore, _ slowResult: Result<ImportReport, any Error>, _ fast: TabKeepStore,
        _ fastResult: Result<ImportReport, any Error>, before: [String: [[UInt8]]], oldID: ReplicaID,
        inode: UInt64, keyOrdered: Bool, _ context: String
    ) throws -> String? {
        defer {
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: fast.environment.path))?
                .filter {
                    $0.hasPrefix(Environment.replacementDirectoryPrefix)
                }
            #expect(leftovers == [], "\(context): \(leftovers ?? []) left behind")
        }
        switch (slowResult, fastResult) {
        case (.success(let one), .success(let other)):
            #expect(one == other, "\(context)")
            #expect(try records(slow) == records(fast), "\(context): the two ways stored different records")
            #expect(slow.replicaID != oldID && fast.replicaID != oldID, "\(context)")
            #expect(try fast.identityHistory().last == oldID, "\(context)")
            let verified = try fast.verify()
            #expect(verified.isSound, "\(context): \(verified.problems)")
            // A feed out of key order is imported in one transaction: no new file.
            #expect(
                (Self.inode(fast) != inode) == keyOrdered,
                "\(context): the file was \(Self.inode(fast) == inode ? "not " : "")replaced")
            return keyOrdered ? "accepted" : "accepted out of order"
        case (.failure(let one), .failure(let other)):
            #expect(
                RestoreDifferentialPropertyTests.timeless("\(one)")
                    == RestoreDifferentialPropertyTests.timeless("\(other)"), "\(context)")
            #expect(try records(fast) == before, "\(context): a refused restore changed the store")
            #expect(fast.replicaID == oldID, "\(context)")
            return "refused"
        default:
            Issue.record("\(context): one transaction \(slowResult), fresh file \(fastResult)")
            return nil
        }
    }

    @Test func restoresGiveTheSameOutcomeAndTheSameRecordsBothWays() throws {
        var random = SplitMix64(seed: Self.seed)
        var seen: Set<String> = []
        var reports: [Int] = [0, 0, 0, 0]  // added, changed, unchanged, removed
        for round in 0..<30 {
            let (base, source) = try stores(round, &random)
            // The dump: whole, of some profiles, mutated (the trailer's CRC made right or not), version 2.
            let variant = round % 5
            var dump = try dumpLines(
                source,
                profiles: variant == 1
                    ? Set((0..<20).filter { $0 % 3 != 0 }.map { profile("user-\($0)") }) : nil,
                version: variant == 4 ? 2 : 3)
            let documents = Self.documentLines(dump)
            if variant == 2 || variant == 3, let pick = documents.randomElement(using: &random) {
                var line = dump[pick]
                let at = Int(random.next() % UInt64(line.count))
                line[at] = Array("0123456789,:{}\"x".utf8)[Int(random.next() % 16)]
                if variant == 2 {
                    dump = lines.replacing(dump, at: pick, with: line)
                } else {
                    dump[pick] = line
                }
            }
            let path = directory.sub("dump-\(round)")
            try Data(dump.flatMap { $0 + [0x0A] }).write(to: URL(fileURLWithPath: path))
            if variant == 0 {
                // A stored document the dump also holds, its bytes spoiled: the restore counts it
                // changed (an encoded one is not decoded to tell).
                var shared: [DocumentKey] = []
                try source.forEachDocument { key, _ in shared.append(key) }
                let stored = try base.environment.read { txn in
                    try shared.filter {
                        try txn.get(base.documentsDatabase, key: base.documentRecordKey($0)) != nil
                    }
                }
                if let key = stored.randomElement(using: &random) {
                    try base.environment.write { txn in
                        let record = base.documentRecordKey(key)
                        let bytes = try txn.get(base.documentsDatabase, key: record) ?? []
                        try txn.put(
                            base.documentsDatabase, key: record,
                            value: DumpThreadsDifferentialPropertyTests.corruption(of: bytes, &random))
                    }
                }
            }

            let slow = try copy(base, to: "slow-\(round)")
            let fast = try copy(base, to: "fast-\(round)")
            let (before, oldID, inode) = (try records(fast), fast.replicaID, Self.inode(fast))
            let batch = 1 + Int(random.next() % 7)
            // Document lines transcoded into the stored bytes in most rounds of the fresh file and
            // some of the one transaction (which decodes them), read as documents in the rest.
            let (slowTranscoding, fastTranscoding) = (round % 3 == 0, round % 4 != 3)
            let slowResult = Result {
                try slow.restore(
                    fromDumpAt: path, mode: .replace, strategy: .oneTransaction, transcoding: slowTranscoding)
            }
            let fastResult = Result {
                try fast.restore(
                    fromDumpAt: path, mode: .replace,
                    strategy: .replacementFile(batch: batch, preparing: Self.preparations[round % 3]),
                    transcoding: fastTranscoding)
            }
            if case (.success(let one), .success(let other)) = (slowResult, fastResult) {
                #expect(
                    one.summary.documents == other.summary.documents
                        && one.summary.bytes == other.summary.bytes)
                reports[0] += one.report.added
                reports[1] += one.report.changed
                reports[2] += one.report.unchanged
                reports[3] += one.report.removed
            }
            let outcome = try compare(
                slow, slowResult.map(\.report), fast, fastResult.map(\.report), before: before, oldID: oldID,
                inode: inode, keyOrdered: true,
                "round \(round), variant \(variant), batch \(batch), \(Self.preparations[round % 3]), transcoding \(slowTranscoding) / \(fastTranscoding) [\(Self.replay)]"
            )
            if let outcome { seen.insert(outcome) }
        }
        #expect(seen == ["accepted", "refused"], "[\(Self.replay)]")
        // The rounds reached every kind of outcome a report counts.
        #expect(
            reports.allSatisfy { $0 > 0 },
            "\(reports) [\(Self.replay)]")
    }

    /// `importDocuments` takes any feed: documents fed twice in a row merge, a feed out of key order
    /// is imported in one transaction, and a document stamped too far ahead refuses the whole import.
    @Test func importsOfAnyFeedGiveTheSameOutcomeAndTheSameRecordsBothWays() throws {
        var random = SplitMix64(seed: Self.seed ^ 0xFEED)
        var seen: Set<String> = []
        for round in 0..<24 {
            let (base, source) = try stores(100 + round, &random)
            var feed: [(DocumentKey, TabBarDocument)] = []
            try source.forEachDocument { key, document in feed.append((key, try document.get())) }
            let variant = round % 4
            switch variant {
            case 1:
                // Some documents fed twice in a row: again as they are, or with one more edit.
                for index in stride(from: feed.count - 1, through: 0, by: -3) {
                    var again = feed[index].1
                    if index % 2 == 0 {
                        var replica = Replica(id: ReplicaID(rawValue: 99))
                        try? again.apply(.setBadge(tab("a"), index), catalog: letterTabs, by: &replica)
                    }
                    feed.insert((feed[index].0, again), at: index + 1)
                }
            case 2:
                if feed.count >= 2 { feed.swapAt(0, feed.count - 1) }
            case 3:
                // A document from far in the future, at a random place.
                var future = TabBarDocument()
                var replica = Replica(
                    id: ReplicaID(rawValue: 77),
                    clock: HybridLogicalClock(
                        last: Stamp(
                            milliseconds: HybridLogicalClock.wallMilliseconds() + 864_000_000, counter: 0)))
                try future.apply(.setBadge(tab("a"), 3), catalog: letterTabs, by: &replica)
                feed.insert(
                    (DocumentKey(profile: profile("user-5"), bar: .main), future),
                    at: Int(random.next() % UInt64(feed.count + 1)))
            default: break
            }
            let catalogs = [(bar: bar("side"), catalog: letterTabs)]
            let slow = try copy(base, to: "slow-\(round)")
            let fast = try copy(base, to: "fast-\(round)")
            let (before, oldID, inode) = (try records(fast), fast.replicaID, Self.inode(fast))
            let batch = 1 + Int(random.next() % 5)
            // Half the rounds feed each document in its stored bytes, as a transcoded dump line comes.
            let encoding = round % 2 == 1
            func run(_ store: TabKeepStore, _ strategy: ReplaceStrategy) -> Result<ImportReport, any Error> {
                Result {
                    try store.importFed(mode: .replace, catalogs: catalogs, strategy: strategy) { add in
                        for (key, document) in feed {
                            try add(key, encoding ? .encoded(EncodedDocument(document)) : .decoded(document))
                        }
                    }
                }
            }
            let outcome = try compare(
                slow, run(slow, .oneTransaction), fast,
                run(fast, .replacementFile(batch: batch, preparing: Self.preparations[round % 3])),
                before: before,
                oldID: oldID, inode: inode, keyOrdered: variant != 2,
                "feed round \(round), variant \(variant), batch \(batch), \(Self.preparations[round % 3]), encoded \(encoding) [\(Self.replay)]"
            )
            if let outcome { seen.insert(outcome) }
        }
        #expect(seen == ["accepted", "accepted out of order", "refused"], "[\(Self.replay)]")
    }
}
