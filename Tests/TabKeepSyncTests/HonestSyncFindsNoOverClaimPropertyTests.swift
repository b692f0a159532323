import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

/// The other half of healing: stores that only ever exchanged honest messages — through edits,
/// resets, erases, guest merges, scoped and whole syncs, folder files and dump merges — never
/// find a bad claim, so the digest never sends a profile whole for nothing.
@Suite struct HonestSyncFindsNoOverClaimPropertyTests {
    @Test(arguments: 0..<40)
    func honestExchangesNeverReportAnOverClaim(seed: Int) throws {
        let directory = TemporaryDirectory()
        var scenario = try ModelScenario(
            seed: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 3, directory: directory, count: 3...4)
        let folder = directory.folder("shared")
        var claims: [OverClaim] = []
        for step in 0..<40 {
            let count = scenario.stores.count
            let device = Int.random(in: 0..<count, using: &scenario.random)
            let other = (device + Int.random(in: 1..<count, using: &scenario.random)) % count
            let who = scenario.profiles.randomElement(using: &scenario.random)!
            switch Int.random(in: 0..<10, using: &scenario.random) {
            case 0..<5: try scenario.edit(on: device)
            case 5: claims += try sync(scenario.stores[device], scenario.stores[other]).overClaims
            case 6:
                claims += try sync(scenario.stores[device], scenario.stores[other], profiles: [who])
                    .overClaims
            case 7, 8:
                let transport = try FolderTransport(
                    path: folder, store: scenario.stores[device], profiles: nil)
                claims += try transport.sync().overClaims
            default:
                let path = directory.sub("dump-\(step)")
                try scenario.dump(scenario.stores[device], profiles: [who], to: path)
                _ = try scenario.stores[other].restore(fromDumpAt: path, mode: .merge)
            }
        }
        try scenario.finalExchange()
        for first in scenario.stores.indices {
            for second in scenario.stores.indices where second != first {
                claims += try sync(scenario.stores[first], scenario.stores[second]).overClaims
            }
        }
        #expect(
            claims.isEmpty,
            "\(replayLine(seed: UInt64(seed), filter: "HonestSyncFindsNoOverClaimPropertyTests")): \(claims)\n\(scenario.log.joined(separator: "\n"))"
        )
    }
}
