import LMDBKit
import TabKeep

/// `tabkeep verify`: check a store's records against each other.
enum VerifyCommand {
    static let spec = CommandSpec(
        name: "verify", usage: "STORE",
        summary: "Check a store: documents decode and hold their invariants; dots, versions and meta agree.",
        details: """
            Reads the raw LMDB databases in one snapshot and checks that every document decodes and
            its invariants hold; that every dot of every document has a `dots` row pointing at it,
            every `dots` row points at a document holding that dot, and no dot is past the version
            vector (`versions`); that `meta` is sane (schema, replica id, clock, sequence); and
            that every registered catalog decodes. Lists each problem; exit 1 if there is any.

            Example:
              tabkeep verify ~/stores/app
            """,
        positionals: ["STORE"], flags: [], run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let store = try Stores.existing(arguments.positionals[0])
        let (problems, figures) = try check(store)
        for problem in problems { print("problem: \(problem)") }
        if problems.isEmpty {
            print("ok: \(figures)")
            return 0
        }
        Output.error("\(problems.count) problem\(problems.count == 1 ? "" : "s") found (\(figures))")
        return 1
    }

    static func bigEndian(_ bytes: some Collection<UInt8>) -> UInt64? {
        guard bytes.count == 8 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func dotKey(_ dot: Dot) -> [UInt8] {
        (0..<16).map { index in
            let value = index < 8 ? dot.replica.rawValue : dot.sequence
            return UInt8(truncatingIfNeeded: value >> (56 - 8 * (index % 8)))
        }
    }

    static func name(_ key: DocumentKey) -> String { "document \"\(key.profile)\"/\"\(key.bar)\"" }

    /// Every problem found, and a one-line count of what was checked.
    static func check(_ store: TabKeepStore) throws -> (problems: [String], figures: String) {
        let environment = store.environment
        let meta = try environment.database("meta")
        let documents = try environment.database("documents")
        let dots = try environment.database("dots")
        let versions = try environment.database("versions")
        let catalogs = try environment.database("catalogs")
        return try environment.read { txn in
            var problems: [String] = []
            // meta
            var sequence: UInt64?
            for name in ["schema", "replica", "clock", "sequence", "created"] {
                guard let bytes = try txn.get(meta, key: Array(name.utf8)) else {
                    problems.append("meta: \"\(name)\" is missing")
                    continue
                }
                guard let value = bigEndian(bytes) else {
                    problems.append("meta: \"\(name)\" is \(bytes.count) bytes, not 8")
                    continue
                }
                switch name {
                case "schema" where value < 1 || value > UInt64(TabKeepStore.schemaVersion):
                    problems.append("meta: schema \(value) is not 1–\(TabKeepStore.schemaVersion)")
                case "replica" where value == 0:
                    problems.append("meta: replica id is 0")
                case "replica" where value != store.replicaID.rawValue:
                    problems.append("meta: replica id changed while open")
                case "sequence":
                    sequence = value
                default: break
                }
            }
            // versions
            var vector = VersionVector()
            try txn.forEach(versions) { key, value in
                guard let replica = bigEndian(key), let seen = bigEndian(value) else {
                    problems.append(
                        "versions: a row with a \(key.count)-byte key and a \(value.count)-byte value")
                    return true
                }
                if seen == 0 { problems.append("versions: replica \(ReplicaID(rawValue: replica)) at 0") }
                vector[ReplicaID(rawValue: replica)] = seen
                return true
            }
            if let sequence, vector[store.replicaID] < sequence {
                problems.append(
                    "versions: this replica is at \(vector[store.replicaID]) but meta's sequence is \(sequence)"
                )
            }
            // documents, and their dots in `dots`
            var holders: [Dot: DocumentKey] = [:]
            var documentCount = 0
            try txn.forEach(documents) { keyBytes, value in
                documentCount += 1
                let key: DocumentKey
                do {
                    key = try DocumentKey(bytes: keyBytes)
                } catch {
                    problems.append("documents: a key that is not profile‖0‖bar: \(error)")
                    return true
                }
                let document: TabBarDocument
                do {
                    document = try TabBarDocument(decoding: value)
                } catch {
                    problems.append("\(name(key)): does not decode: \(error)")
                    return true
                }
                for problem in document.problems() { problems.append("\(name(key)): \(problem)") }
                let keyArray = key.bytes
                for dot in document.dots {
                    if let other = holders.updateValue(key, forKey: dot) {
                        problems.append("\(name(key)): dot \(dot) is also held by \(name(other))")
                    }
                    if !vector.contains(dot) {
                        problems.append("\(name(key)): dot \(dot) is past versions (\(vector[dot.replica]))")
                    }
                    if dot.replica == store.replicaID, let sequence, dot.sequence > sequence {
                        problems.append("\(name(key)): dot \(dot) is past meta's sequence \(sequence)")
                    }
                    let row = try txn.get(dots, key: dotKey(dot))
                    if row == nil {
                        problems.append("\(name(key)): dot \(dot) has no row in dots")
                    } else if row != keyArray {
                        problems.append("\(name(key)): the dots row of \(dot) points elsewhere")
                    }
                }
                return true
            }
            // dots rows that no document holds
            var dotRows = 0
            try txn.forEach(dots) { key, value in
                dotRows += 1
                guard key.count == 16, let replica = bigEndian(key.prefix(8)),
                    let seq = bigEndian(key.suffix(8))
                else {
                    problems.append("dots: a \(key.count)-byte key")
                    return true
                }
                let dot = Dot(replica: ReplicaID(rawValue: replica), sequence: seq)
                guard let target = try? DocumentKey(bytes: value) else {
                    problems.append("dots: row \(dot) holds no document key")
                    return true
                }
                if holders[dot] != target {
                    problems.append("dots: row \(dot) points at \(name(target)), which does not hold it")
                }
                return true
            }
            // catalogs
            var catalogCount = 0
            try txn.forEach(catalogs) { key, value in
                catalogCount += 1
                let bar = String(decoding: key, as: UTF8.self)
                do {
                    _ = try Catalog(decoding: value)
                } catch {
                    problems.append("catalog of bar \"\(bar)\": does not decode: \(error)")
                }
                return true
            }
            let figures =
                "\(documentCount) documents, \(dotRows) dots, \(vector.replicas.count) replicas, \(catalogCount) catalogs"
            return (problems, figures)
        }
    }
}
