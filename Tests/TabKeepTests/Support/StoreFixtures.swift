import Foundation
import LMDBKit
import TabKeep

func bar(_ name: String) -> BarID { try! BarID(name) }

/// Every record of every database, for comparing a store before and after something that must not change it.
func snapshot(_ store: TabKeepStore) throws -> [String: [[UInt8]]] {
    var result: [String: [[UInt8]]] = [:]
    for name in store.environment.databaseNames {
        let database = try store.environment.database(name)
        result[name] = try store.environment.read { txn in
            try txn.records(database).flatMap { [$0.key, $0.value] }
        }
    }
    return result
}

/// The path of a program built next to the test bundle (`tabkeep`, say), or nil.
func builtProduct(_ name: String) -> String? {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        directory.deleteLastPathComponent()
    }
    return nil
}
