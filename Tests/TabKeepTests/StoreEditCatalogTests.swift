import Foundation
import LMDBKit
import TabKeepTestSupport
import Testing

@testable import TabKeep

/// Edits resolve against the registered catalog through the decoded-catalog cache: the catalog
/// committed at that instant, whoever registered it, with the same errors as a fresh decode.
@Suite("Store edits and the registered catalog")
struct StoreEditCatalogTests {
    let directory = TemporaryDirectory()

    @Test func anEditResolvesAgainstTheCatalogRegisteredThroughAnotherHandleAtOnce() throws {
        let path = directory.sub("store")
        let store = try TabKeepStore(path: path)
        let other = try TabKeepStore(path: path)
        let reversed = try Catalog(letterTabs.tabs.reversed().map(\.id))
        try store.registerCatalog(letterTabs)
        try store.edit(profile("p"), .move(tab("c"), to: 0))
        #expect(try store.layout(profile("p")).order.prefix(2) == [tab("c"), tab("a")])
        try other.registerCatalog(reversed)
        // A move is resolved against the catalog registered now, the reversed one.
        try store.edit(profile("q"), .move(tab("a"), to: 0))
        #expect(try store.layout(profile("q")).order.first == tab("a"))
        #expect(try store.layout(profile("q"), catalog: reversed) == (try other.layout(profile("q"))))
        // The general path (the catalog passed in) gives the same document as the cached one.
        try store.edit(profile("r"), [.move(tab("d"), to: 1), .setHidden(tab("f"), true)])
        try store.edit(profile("s"), catalog: reversed, [.move(tab("d"), to: 1), .setHidden(tab("f"), true)])
        let viaCache = try #require(try store.document(profile("r")))
        let viaGiven = try #require(try store.document(profile("s")))
        #expect(viaCache.layout(catalog: reversed) == viaGiven.layout(catalog: reversed))
    }

    @Test func aMissingOrCorruptCatalogFailsTheEditAsBeforeAndWritesNothing() throws {
        let store = try TabKeepStore(path: directory.sub("store"))
        #expect(throws: TabKeepError.noCatalog(.main)) {
            try store.edit(profile("p"), .move(tab("a"), to: 1))
        }
        try store.registerCatalog(letterTabs)
        try store.edit(profile("p"), .move(tab("b"), to: 0))
        let before = try store.document(profile("p"))
        let catalogs = try store.environment.database("catalogs")
        try store.environment.write { txn in
            try txn.put(catalogs, key: Array("main".utf8), value: [1, 0x80])
        }
        let expected = try #require(throws: DocumentDecodingError.self) { try Catalog(decoding: [1, 0x80]) }
        #expect(throws: TabKeepError.corruptCatalog(.main, expected)) {
            try store.edit(profile("p"), .move(tab("a"), to: 0))
        }
        #expect(try store.document(profile("p")) == before)
    }
}
