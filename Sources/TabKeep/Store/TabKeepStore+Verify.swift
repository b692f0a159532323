import LMDBKit

/// What ``TabKeepStore/verify()`` found: every problem, and what it checked.
public struct VerifyReport: Hashable, Sendable {
    /// Each broken invariant, as a sentence naming the record; empty for a sound store.
    public var problems: [String] = []
    /// Documents checked.
    public var documents = 0
    /// Dots the documents hold (each document's entries and clear), checked.
    public var dots = 0
    /// Profiles with a version vector.
    public var profiles = 0
    /// Replicas named in any profile's vector.
    public var replicas = 0
    /// Registered catalogs checked.
    public var catalogs = 0

    /// Whether no problem was found.
    public var isSound: Bool { problems.isEmpty }

    /// "N documents, N dots, N profiles, N replicas, N catalogs".
    public var figures: String {
        "\(documents) documents, \(dots) dots, \(profiles) profiles, \(replicas) replicas, \(catalogs) catalogs"
    }
}

extension TabKeepStore {
    /// Checks, in one snapshot, exactly the invariants the store keeps, and reports every one that
    /// does not hold. It writes nothing, not even to repair. A store changed only through this API
    /// and the tool always verifies clean.
    ///
    /// - `meta`: schema 6 (2 to 5 in a read-only open of an older store), a nonzero replica id (the
    ///   open one), a clock, a creation time, and a well-formed identity history and change-log
    ///   revision.
    /// - the change log's tail (schema 5, in LMDB's main database): keys of its form, records that
    ///   name a document, fewer than 8 consecutive revisions, all after the last of `changes`.
    /// - `profiles` (schema 3 and later): every key is profile ‖ 0x00 ‖ a tag (`d`, `l` or `v`, and
    ///   `o` up to schema 5) ‖ the rest; every stored layout (`l`) has its document, and where it
    ///   names the bar's registered catalog, it is that document's layout with that catalog.
    /// - documents: every key is profile ‖ 0x00 ‖ (d) ‖ bar, every value decodes and holds the
    ///   document invariants (tombstones exactly where the clear covers).
    /// - dots: no dot is held by two documents of one profile (nor twice by one document, which
    ///   the document invariants check). Up to schema 5 (read where it is), the `dots` rows too:
    ///   every dot of every document has a row under the document's profile naming its bar; every
    ///   row names a document that holds that dot — or, for the dot of a clear that lost to another
    ///   clear, a document that has a clear.
    /// - `versions`: every row is nonzero; no dot of a profile is past that profile's vector, and this
    ///   replica's own sequence in each profile is at least its highest dot there.
    /// - `catalogs`: every registered catalog decodes.
    public func verify() throws(TabKeepError) -> VerifyReport {
        return try read { txn in try verify(txn) }
    }

    private func verify(_ txn: borrowing Transaction) throws -> VerifyReport {
        var report = VerifyReport()
        func problem(_ text: String) { report.problems.append(text) }
        func name(_ key: DocumentKey) -> String { "document \"\(key.profile)\"/\"\(key.bar)\"" }

        let storedSchema = try txn.get(meta, key: Records.MetaKey.schema).flatMap(Records.uint64)
        // This snapshot's schema, not the open's: another process may have migrated the store since.
        let dotRecords = storedSchema.map { $0 < UInt64(Records.firstSchemaWithoutDots) } ?? false
        if let schema = storedSchema, schema == 1 {
            problem(
                "schema 1 (the first release's layout, not yet migrated): open the store for writing once (an app, or tabkeep set) to migrate it to schema \(Records.schemaVersion)"
            )
            return report
        }

        // meta
        for (name, key) in [
            ("schema", Records.MetaKey.schema), ("replica", Records.MetaKey.replica),
            ("clock", Records.MetaKey.clock), ("created", Records.MetaKey.created),
        ] {
            guard let bytes = try txn.get(meta, key: key) else {
                problem("meta: \"\(name)\" is missing")
                continue
            }
            guard let value = Records.uint64(bytes) else {
                problem("meta: \"\(name)\" is \(bytes.count) bytes, not 8")
                continue
            }
            // A read-only open reads a schema-2 store where it is (a writing open migrates it).
            // A read-only open reads a schema-3 store where it is too (it only lacks layout records).
            let expected: ClosedRange<UInt64> =
                spaces.tagged ? UInt64(Records.firstTaggedSchema)...UInt64(Records.schemaVersion) : 2...2
            if name == "schema" && !expected.contains(value) {
                problem("meta: schema \(value), not \(Records.schemaVersion)")
            }
            if name == "replica" && value == 0 { problem("meta: replica id is 0") }
            // Another process may have given the store a fresh id (a replace restore): not damage.
            if name == "replica" && value != 0 && value != replicaID.rawValue {
                identity.withLock { $0 = ReplicaID(rawValue: value) }
            }
        }
        if try txn.get(meta, key: Records.MetaKey.sequence) != nil {
            problem("meta: \"sequence\" (schema 1) is still there")
        }
        if let bytes = try txn.get(meta, key: Records.MetaKey.identities), bytes.count % 8 != 0 {
            problem("meta: \"identities\" is \(bytes.count) bytes, not a list of 8-byte ids")
        }
        if let bytes = try txn.get(meta, key: Records.MetaKey.revision), bytes.count != 8 {
            problem("meta: \"revision\" is \(bytes.count) bytes, not 8")
        }

        if changeLog == nil { problem("the \"changes\" database is missing") }
        try verifyChangeTail(txn, problem)

        // profiles: every key is profile ‖ 0x00 ‖ a known tag ‖ the rest
        if spaces.tagged {
            var known = [Records.Tag.document, Records.Tag.layout, Records.Tag.version]
            if dotRecords { known.append(Records.Tag.dot) }
            try txn.forEach(documents) { key, _ in
                guard let separator = key.firstIndex(of: 0), separator > 0, separator + 1 < key.count,
                    known.contains(key[separator + 1])
                else {
                    if let separator = key.firstIndex(of: 0), separator + 1 < key.count,
                        key[separator + 1] == Records.Tag.dot
                    {
                        problem(
                            "profiles: a dot record (profile‖0‖o‖…, schema 5 and older) in a schema-\(storedSchema ?? 0) store"
                        )
                    } else {
                        problem(
                            "profiles: a \(key.count)-byte key that is not profile‖0‖\(dotRecords ? "d, l, o" : "d, l") or v‖…"
                        )
                    }
                    return true
                }
                return true
            }
        }

        // versions
        var vectors: [ProfileID: VersionVector] = [:]
        var replicas: Set<ReplicaID> = []
        try spaces.forEach(txn, Records.Tag.version) { key, value in
            guard let (profile, replica) = spaces.version(from: key), let sequence = Records.uint64(value)
            else {
                problem("versions: a malformed row (\(key.count)-byte key, \(value.count)-byte value)")
                return true
            }
            if sequence == 0 { problem("versions: \"\(profile)\" names replica \(replica) at 0") }
            vectors[profile, default: VersionVector()][replica] = sequence
            replicas.insert(replica)
            return true
        }
        report.profiles = vectors.count
        report.replicas = replicas.count

        // documents, and (up to schema 5) their dots in `dots`
        var holders: [ProfileID: [Dot: BarID]] = [:]
        var cleared: Set<DocumentKey> = []
        try spaces.forEach(txn, Records.Tag.document) { keyBytes, value in
            report.documents += 1
            let key: DocumentKey
            do {
                key = try spaces.documentKey(from: keyBytes)
            } catch {
                problem("documents: a key that is not profile‖0‖bar: \(error)")
                return true
            }
            let document: TabBarDocument
            do {
                document = try TabBarDocument(decoding: value)
            } catch {
                problem("\(name(key)): does not decode: \(error)")
                return true
            }
            for text in document.problems() { problem("\(name(key)): \(text)") }
            if document.entries.last?.key == .cleared { cleared.insert(key) }
            let vector = vectors[key.profile] ?? VersionVector()
            let bar = Array(key.bar.rawValue.utf8)
            for dot in document.dots {
                report.dots += 1
                if let other = holders[key.profile, default: [:]].updateValue(key.bar, forKey: dot) {
                    problem("\(name(key)): dot \(dot) is also held by bar \"\(other)\"")
                }
                if !vector.contains(dot) {
                    problem("\(name(key)): dot \(dot) is past the profile's vector (\(vector[dot.replica]))")
                }
                guard dotRecords else { continue }
                let row = try txn.get(dots, key: spaces.dotKey(key.profile, dot))
                if row == nil {
                    problem("\(name(key)): dot \(dot) has no row in dots")
                } else if row != bar {
                    problem("\(name(key)): the dots row of \(dot) names another bar")
                }
            }
            return true
        }

        // stored layouts: each beside its document, and its layout where its catalog is the one registered
        if spaces.tagged {
            try spaces.forEach(txn, Records.Tag.layout) { keyBytes, value in
                let key: DocumentKey
                do {
                    key = try spaces.documentKey(from: keyBytes, tag: Records.Tag.layout)
                } catch {
                    problem("profiles: a layout key that is not profile‖0‖l‖bar: \(error)")
                    return true
                }
                let record = Array(value)
                let place = "the stored layout of \(name(key))"
                guard record.count >= CompactLayout.storedHeader, record[0] == CompactLayout.storedFormat
                else {
                    problem("\(place): not a layout record of format \(CompactLayout.storedFormat)")
                    return true
                }
                guard let document = try txn.get(documents, key: spaces.documentKey(key)) else {
                    problem("\(place): there is no such document")
                    return true
                }
                let registered = try? registeredCatalog(txn, bar: key.bar)
                let fingerprint = record.withUnsafeBytes { CompactLayout.storedFingerprint($0) }
                // A record resolved against another catalog than the registered one is not read.
                guard let registered, registered.fingerprint == fingerprint else { return true }
                if try layoutRecord(txn, key.bar, of: document) != record {
                    problem("\(place): is not the layout of the document with the registered catalog")
                }
                return true
            }
        }

        // dots rows (up to schema 5) that no document holds
        if dotRecords {
            try verifyDotRows(txn, holders: holders, cleared: cleared, vectors: vectors, problem)
        }

        // catalogs
        try txn.forEach(catalogsDatabase) { key, value in
            report.catalogs += 1
            do {
                _ = try Catalog(decoding: value)
            } catch {
                problem(
                    "catalog of bar \"\(String(decoding: key, as: UTF8.self))\": does not decode: \(error)")
            }
            return true
        }
        return report
    }

    /// The `dots` rows of a store of schema 5 or older, read where it is: each names a document
    /// that holds its dot (or has a clear) and is within its profile's vector.
    private func verifyDotRows(
        _ txn: borrowing Transaction, holders: [ProfileID: [Dot: BarID]], cleared: Set<DocumentKey>,
        vectors: [ProfileID: VersionVector], _ problem: (String) -> Void
    ) throws {
        func name(_ key: DocumentKey) -> String { "document \"\(key.profile)\"/\"\(key.bar)\"" }
        try spaces.forEach(txn, Records.Tag.dot) { key, value in
            guard let (profile, dot) = spaces.dot(from: key) else {
                problem("dots: a malformed \(key.count)-byte key")
                return true
            }
            guard let bar = try? BarID(String(decoding: value, as: UTF8.self)) else {
                problem("dots: row \(profile)/\(dot) holds no bar id")
                return true
            }
            let target = DocumentKey(profile: profile, bar: bar)
            if holders[profile]?[dot] != bar && !cleared.contains(target) {
                problem(
                    "dots: row \(profile)/\(dot) points at \(name(target)), which neither holds it nor has a clear"
                )
            }
            if !(vectors[profile] ?? VersionVector()).contains(dot) {
                problem("dots: row \(profile)/\(dot) is past the profile's vector")
            }
            return true
        }
    }
}

extension TabKeepStore {
    /// The change log's tail (schema 5, in LMDB's main database): keys of the tail's form, records
    /// that name a document, fewer than a block of consecutive revisions, all after the last
    /// record of `changes`.
    fileprivate func verifyChangeTail(_ txn: borrowing Transaction, _ problem: (String) -> Void) throws {
        var revisions: [UInt64] = []
        try txn.forEach(.main, in: .prefix(Records.changeTailPrefix)) { key, value in
            guard let revision = Records.changeTailRevision(key) else {
                problem("the change log's tail: a key of \(key.count) bytes")
                return true
            }
            if (try? changedKey(value)) == nil {
                problem("the change log's tail: revision \(revision) names no document")
            }
            revisions.append(revision)
            return true
        }
        guard let first = revisions.first, let last = revisions.last else { return }
        if UInt64(revisions.count) >= Records.changeTailBlock {
            problem(
                "the change log's tail holds \(revisions.count) records, more than \(Records.changeTailBlock - 1)"
            )
        }
        if last - first + 1 != UInt64(revisions.count) {
            problem("the change log's tail: revisions \(first)–\(last) with gaps")
        }
        if let changeLog,
            let settled = try txn.withCursor(
                changeLog, { cursor in try cursor.last().flatMap { Records.uint64($0.key) } }),
            settled >= first
        {
            problem(
                "the change log's tail starts at revision \(first), not after \"changes\"' last, \(settled)")
        }
    }
}
