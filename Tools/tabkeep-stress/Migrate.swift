import Foundation
import TabKeep

/// `migrate DIR FIXTURE`: over and over, copies the older store FIXTURE (its `data.mdb`, of
/// schema 1 to 5) into DIR/copying-N, renames it DIR/store-N once whole, prints `opening N`
/// and opens it for writing (which migrates it to the current schema), then prints `migrated N`.
/// The parent kills it at a random instant, so some store is caught part-way through its copy,
/// its open or its migration, and checks that every store-N opens as the old schema or the new
/// one with the fixture's content.
enum Migrate {
    static func run(directory: String, fixture: String) throws -> Int32 {
        let source = try Data(contentsOf: URL(fileURLWithPath: fixture + "/data.mdb"))
        let files = FileManager.default
        var number = 0
        while true {
            let copying = directory + "/copying-\(number)"
            let store = directory + "/store-\(number)"
            try files.createDirectory(atPath: copying, withIntermediateDirectories: true)
            try source.write(to: URL(fileURLWithPath: copying + "/data.mdb"))
            try files.moveItem(atPath: copying, toPath: store)
            Line.out("opening \(number)")
            _ = try TabKeepStore(path: store)
            Line.out("migrated \(number)")
            number += 1
        }
    }
}
