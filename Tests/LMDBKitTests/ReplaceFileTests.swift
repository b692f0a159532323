import Foundation
import LMDBKit
import TabKeepTestSupport
import Testing

@Suite("Replacing the data file")
struct ReplaceFileTests {
    let directory = TemporaryDirectory()

    func open(_ name: String, _ locking: Locking) throws -> Environment {
        try Environment.open(
            path: directory.sub(name), configuration: .init(databases: ["items", "other"], locking: locking))
    }

    func contents(_ env: Environment, _ name: String) throws -> [String: String] {
        let database = try env.database(name)
        return try env.read { txn in
            var result: [String: String] = [:]
            for (key, value) in try txn.records(database) {
                result[String(decoding: key, as: UTF8.self)] = String(decoding: value, as: UTF8.self)
            }
            return result
        }
    }

    func replacementDirectories(_ env: Environment) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: env.path).filter {
            $0.hasPrefix(Environment.replacementDirectoryPrefix)
        }
    }

    @Test(arguments: Locking.allCases)
    func theNewContentReplacesTheOldInEveryLaterTransaction(_ locking: Locking) throws {
        let env = try open("env", locking)
        let items = try env.database("items")
        let other = try env.database("other")
        try env.write { txn in
            for index in 0..<100 { try txn.put(items, key: "old\(index)".bytes, value: "o".bytes) }
            try txn.put(other, key: "kept".bytes, value: "before".bytes)
        }
        let openings = env.openings
        let seen = try env.replaceFile(mapSize: 1 << 20) { current, replacement in
            // The current content is readable throughout (from any thread); the replacement is written in several commits.
            let copied = try current.read { txn in try txn.get(other, key: "kept".bytes) }
            try replacement.write { txn in try txn.put(other, key: "kept".bytes, value: copied ?? []) }
            for batch in 0..<5 {
                try replacement.write { txn in
                    for index in 0..<50 {
                        try txn.put(items, key: "new\(batch)-\(index)".bytes, value: "n".bytes)
                    }
                }
            }
            return try current.read { txn in try txn.count(items) }
        }
        #expect(seen == 100)
        #expect(env.openings == openings + 1, "the handle is reopened on the new file")
        let now = try contents(env, "items")
        #expect(now.count == 250 && now.keys.allSatisfy { $0.hasPrefix("new") })
        #expect(try contents(env, "other") == ["kept": "before"])
        #expect(try replacementDirectories(env).isEmpty)
        // Writes go on in the new file, and it is what a later open finds.
        try env.write { txn in try txn.put(items, key: "after".bytes, value: "a".bytes) }
        let path = env.path
        try env.close()
        let again = try Environment.open(
            path: path, configuration: .init(databases: ["items", "other"], locking: locking))
        #expect(try contents(again, "items").count == 251)
        #expect(again.locking == locking)
    }

    @Test(arguments: Locking.allCases)
    func aBuildThatThrowsLeavesTheStoreAsItWas(_ locking: Locking) throws {
        struct Refused: Error {}
        let env = try open("env", locking)
        let items = try env.database("items")
        try env.write { txn in try txn.put(items, key: "old".bytes, value: "o".bytes) }
        #expect(throws: Refused.self) {
            try env.replaceFile(mapSize: 1 << 20) { _, replacement in
                try replacement.write { txn in try txn.put(items, key: "new".bytes, value: "n".bytes) }
                throw Refused()
            }
        }
        #expect(try contents(env, "items") == ["old": "o"])
        #expect(try replacementDirectories(env).isEmpty)
        #expect(!env.isSuspended)
        try env.write { txn in try txn.put(items, key: "later".bytes, value: "l".bytes) }
        #expect(try contents(env, "items") == ["old": "o", "later": "l"])
    }

    @Test(arguments: Locking.allCases)
    func directoriesLeftByACutShortReplacementAreRemovedByTheNext(_ locking: Locking) throws {
        let env = try open("env", locking)
        let leftover = env.path + "/" + Environment.replacementDirectoryPrefix + "cut-short"
        try FileManager.default.createDirectory(atPath: leftover, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: leftover + "/data.mdb", contents: Data(count: 4096)))
        try env.replaceFile(mapSize: 1 << 20) { _, _ in }
        #expect(try replacementDirectories(env).isEmpty)
    }

    @Test(arguments: Locking.allCases)
    func insideTheBuildReadsSeeTheOldContentAndWritesAreRefused(_ locking: Locking) throws {
        let env = try open("env", locking)
        let items = try env.database("items")
        try env.write { txn in try txn.put(items, key: "old".bytes, value: "o".bytes) }
        try env.replaceFile(mapSize: 1 << 20) { _, replacement in
            try replacement.write { txn in try txn.put(items, key: "new".bytes, value: "n".bytes) }
            #expect(try contents(env, "items") == ["old": "o"])
            #expect(throws: LMDBError.nestedTransaction) {
                try env.write { txn in try txn.put(items, key: "lost".bytes, value: [1]) }
            }
            // With the handle closed for the build (lmdb mode), a call that needs it is refused.
            if locking == .lmdb { #expect(throws: LMDBError.nestedTransaction) { try env.sync() } }
        }
        #expect(try contents(env, "items") == ["new": "n"])
    }

    @Test func insideATransactionItIsRefused() throws {
        let env = try open("env", .lmdb)
        let refused = try env.read { _ in
            #expect(throws: LMDBError.nestedTransaction) { try env.replaceFile(mapSize: 1 << 20) { _, _ in } }
            return true
        }
        #expect(refused)
    }

    @Test(arguments: Locking.allCases)
    func transactionsOfOtherThreadsWaitForTheReplacement(_ locking: Locking) async throws {
        let env = try open("env", locking)
        let items = try env.database("items")
        try env.write { txn in try txn.put(items, key: "count".bytes, value: [0]) }
        // Writers on other threads bump a counter; each must land in the file that stays.
        let writers = (0..<4).map { _ in
            Task.detached {
                for _ in 0..<50 {
                    try env.write { txn in
                        let value = try txn.get(items, key: "count".bytes) ?? [0]
                        try txn.put(items, key: "count".bytes, value: [value[0] &+ 1])
                    }
                }
            }
        }
        try env.replaceFile(mapSize: 1 << 20) { current, replacement in
            let value = try current.read { txn in try txn.get(items, key: "count".bytes) } ?? [0]
            try replacement.write { txn in try txn.put(items, key: "count".bytes, value: value) }
        }
        for writer in writers { try await writer.value }
        #expect(try env.read { txn in try txn.get(items, key: "count".bytes) } == [200])
    }
}
