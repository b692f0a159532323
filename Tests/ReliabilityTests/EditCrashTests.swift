import Foundation
import LMDBKit
import TabKeep
import TabKeepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Crash: an editing process killed at random instants")
struct EditCrashTests {
    /// Kills an editing child `kills` times at random instants; after each kill the store must
    /// pass `tabkeep verify`, hold every acknowledged edit and no half-applied one.
    @Test(arguments: [(Durability.full, 90), (.metaAsync, 70)])
    func everyAcknowledgedEditSurvivesSigkill(durability: Durability, baseKills: Int) throws {
        let directory = TemporaryDirectory()
        let path = directory.sub("store")
        do {
            let store = try TabKeepStore(path: path, options: .init(durability: durability))
            try store.registerCatalog(Fixture.catalog)
        }
        var random = SystemRandomNumberGenerator()
        var acknowledged: [String: Int] = [:]
        var edits = 0
        var lostEdits = 0
        var inFlightFound = 0
        let kills = killCount(baseKills)
        for round in 0..<kills {
            let child = try Child(
                Built.stress,
                ["edit", path, "--durability", durability.rawValue, "--seed", "\(round)", "--profiles", "3"],
                in: directory)
            // From before the store is open to deep in the edit loop.
            usleep(UInt32.random(in: 0...150_000, using: &random))
            child.kill()
            for line in child.lines where line.hasPrefix("ack ") {
                let parts = line.split(separator: " ")
                acknowledged[String(parts[1])] = Int(parts[2])!
                edits += 1
            }
            if let problems = try verifyProblems(path, in: directory) {
                Issue.record("round \(round): verify failed: \(problems)")
                return
            }
            let store = try TabKeepStore(path: path, options: .init(durability: durability))
            for (name, acked) in acknowledged {
                let document = try store.document(try ProfileID(name))
                guard let shown = document.map(Fixture.badge) ?? 0 else {
                    Issue.record("round \(round): \(name) holds a half-applied edit")
                    return
                }
                // At most the edit in flight when the kill came may be there unacknowledged.
                #expect(shown <= acked + 1, "round \(round): \(name) shows \(shown), past \(acked) + 1")
                if shown < acked { lostEdits += acked - shown }
                if shown == acked + 1 { inFlightFound += 1 }
                acknowledged[name] = max(acked, shown)
            }
        }
        // Kills leave the page cache whole, so nothing may be lost in either mode; what reaches
        // the disk itself is counted in DurabilityTests.
        #expect(lostEdits == 0)
        #expect(edits > kills / 2, "the children made too few edits to test anything")
        report(
            "edit crash (\(durability)): \(kills) kills survived, \(edits) acknowledged edits checked, "
                + "\(inFlightFound) unacknowledged in-flight edits found committed whole, \(lostEdits) lost")
    }
}
