import Foundation
import TabKeep
import TabKeepSync
import TabKeepTestSupport
import Testing

/// A folder transport keeps working across a store's suspend and resume.
@Suite struct SuspendedFolderSyncTests {
    @Test func aPeersEditSyncedWhileThisStoreWasSuspendedArrivesAfterResume() async throws {
        let directory = TemporaryDirectory()
        let folder = directory.folder("shared")
        let phone = try directory.store("phone")
        let tablet = try directory.store("tablet")
        let phoneTransport = try FolderTransport(path: folder, store: phone)
        let tabletTransport = try FolderTransport(path: folder, store: tablet)
        try await phone.edit(profile("user"), catalog: letterTabs, .move(tab("e"), to: 0))
        try phoneTransport.sync()

        await phone.suspend()
        try await tablet.edit(profile("user"), catalog: letterTabs, .addToBadge(tab("a"), 2))
        try tabletTransport.sync()
        phone.resume()

        let report = try phoneTransport.sync()
        #expect(report.skipped.isEmpty, "\(report.skipped)")
        let layout = try phone.layout(profile("user"), catalog: letterTabs)
        #expect(layout.order.first == tab("e") && layout.badges[tab("a")] == 2)

        // A sync while suspended reopens the store transparently, like any synchronous call.
        await phone.suspend()
        try await tablet.edit(profile("user"), catalog: letterTabs, .addToBadge(tab("a"), 1))
        try tabletTransport.sync()
        try phoneTransport.sync()
        #expect(try phone.layout(profile("user"), catalog: letterTabs).badges[tab("a")] == 3)
        phone.resume()
    }
}
