public import Foundation
public import LMDBKit
import Synchronization

/// The tab bar arrangements of every profile on this device, in LMDB.
///
/// ```swift
/// let store = try TabKeepStore(directory: TabKeepStore.defaultDirectory)
/// let profile = try ProfileID("user-42")
/// let catalog = try Catalog(["home", "search", "inbox", "library", "profile", "settings", "help"].map { try TabID($0) })
/// try store.registerCatalog(catalog, for: .main)
/// try store.edit(profile, [.move(try TabID("inbox"), to: 0), .select(.tab(try TabID("search")))])
/// let layout = try store.layout(profile)      // one LMDB get and a decode
/// print(layout.split(maxVisible: 5).visible)
/// ```
///
/// Reads run concurrently from any thread; writes are serialized, across processes too. The
/// synchronous edit methods return when the edit is committed (durable in `.full` mode); the
/// `async` ones hand the edit to a background writer that commits many callers' edits together
/// (group commit) and resumes each caller when its edit is durable. ``changes()`` reports every
/// changed (profile, bar), whoever committed it.
///
/// One store per directory per process: opening the same directory twice shares one LMDB
/// environment.
public final class TabKeepStore: Sendable {
    /// How a store is opened.
    public struct Options: Hashable, Sendable {
        /// When commits reach the disk: `.full` (fsync per commit, the default), `.metaAsync` or `.deferred`.
        public var durability: Durability
        /// The largest the store's map may grow to, in bytes (default 64 GiB, virtual until used).
        public var maxMapSize: Int
        /// The map size to start with, in bytes.
        public var initialMapSize: Int
        /// How often ``TabKeepStore/changes()`` looks for other processes' commits.
        public var pollInterval: Duration
        /// Open for reading only (`MDB_RDONLY`): nothing is ever written — not a missing record or
        /// database, not a migration, not a fresh identity — and every edit throws. For tools that
        /// inspect a store (show, dump, verify, stat), so they report damage instead of repairing it.
        public var readOnly: Bool
        /// The locking mode for a store this open creates (see `Locking`), or nil for
        /// `Locking.defaultForNewStores()` (per-transaction on Apple platforms, lmdb on Linux, unless
        /// `TABKEEP_LOCKING` says otherwise). An existing store keeps the mode it was created in:
        /// nil follows it, and naming the other mode throws.
        public var locking: Locking?
        /// The data-protection class of the store's files on Apple's mobile platforms (default
        /// `completeUntilFirstUserAuthentication`, so an extension can update the store while the
        /// device is locked); set on every writing open. No effect elsewhere.
        public var fileProtection: FileProtection

        /// Options with the defaults: `.full`, a 4 MiB map growing to 64 GiB, polling every 250 ms,
        /// the store's own locking mode, and files readable from the first unlock after boot.
        public init(
            durability: Durability = .full, maxMapSize: Int = 64 << 30, initialMapSize: Int = 4 << 20,
            pollInterval: Duration = .milliseconds(250), readOnly: Bool = false, locking: Locking? = nil,
            fileProtection: FileProtection = .completeUntilFirstUserAuthentication
        ) {
            self.locking = locking
            self.fileProtection = fileProtection
            self.durability = durability
            self.maxMapSize = maxMapSize
            self.initialMapSize = initialMapSize
            self.pollInterval = pollInterval
            self.readOnly = readOnly
        }
    }

    /// The LMDB environment underneath, for this package's tools and tests (not API: apps go through the store).
    package let environment: Environment
    /// This store's replica id: random, never used by two stores. A `replace` restore or the first
    /// writing open of a backup copy gives the store a fresh one (see ``identityHistory()``).
    public var replicaID: ReplicaID { identity.withLock { $0 } }
    let identity: Mutex<ReplicaID>
    /// When the store was created, in milliseconds since 1970.
    public let createdMilliseconds: UInt64
    /// The options the store was opened with.
    public let options: Options
    /// The store's locking mode, recorded in it when it was created.
    public var locking: Locking { environment.locking }

    let meta: Database
    let documents: Database
    let dots: Database
    let versions: Database
    let catalogsDatabase: Database
    /// Absent only in a store opened read-only that has none (a schema-1 store).
    let changeLog: Database?
    let groupCommit = GroupCommitQueue()
    /// The registered catalogs, decoded once, for ``layout(_:bar:catalog:)``.
    let registeredCatalogs = RegisteredCatalogCache()
    let watchers = ChangeWatchers()

    /// The default store directory of this platform: Application Support/TabKeep on Apple
    /// platforms, `$XDG_DATA_HOME/tabkeep` (else `~/.local/share/tabkeep`) elsewhere.
    public static var defaultDirectory: URL {
        #if canImport(Darwin)
            let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
            return base.appendingPathComponent("TabKeep", isDirectory: true)
        #else
            let environment = ProcessInfo.processInfo.environment
            if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
                return URL(fileURLWithPath: data).appendingPathComponent("tabkeep", isDirectory: true)
            }
            return FileManager.default.homeDirectoryForCurrentUser
                .appendingPathComponent(".local/share/tabkeep", isDirectory: true)
        #endif
    }

    /// Opens the store in `directory`, creating it if missing.
    ///
    /// A store written by a newer schema is refused with ``TabKeepError/newerSchema(found:supported:)``
    /// before anything is created or written, so its data file (`data.mdb`) stays byte-identical.
    /// Opening a store that exists and needs no migration writes nothing and syncs nothing.
    public convenience init(directory: URL, options: Options = .init()) throws(TabKeepError) {
        try self.init(path: directory.path, options: options)
    }

    /// Opens the store at the directory `path`, creating it if missing.
    public init(path: String, options: Options = .init()) throws(TabKeepError) {
        self.options = options
        // stat(2) directly: what FileManager.fileExists(atPath:isDirectory:) answers, links followed.
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
            throw .invalidDirectory(path: path, reason: "it is a file, not a directory")
        }
        do {
            // An empty data.mdb would be made a fresh store by a writing open: check it apart, as
            // before, so it is still refused.
            if Self.isEmptyFile(path + "/data.mdb"),
                let schema = try Environment.peek(
                    path: path, database: Records.meta, key: Records.MetaKey.schema)
            {
                try Self.checkSchema(schema)
            }
            var configuration = Configuration(
                databases: Records.all, initialMapSize: options.initialMapSize,
                maxMapSize: options.maxMapSize,
                durability: options.durability, locking: try options.locking ?? Self.recordedLocking(path))
            configuration.readOnly = options.readOnly
            if options.readOnly && !FileManager.default.fileExists(atPath: path + "/data.mdb") {
                throw TabKeepError.invalidDirectory(
                    path: path, reason: "there is no store (no data.mdb) to open read-only")
            }
            // The schema is checked in the open's first transaction, before anything is created:
            // one open and one map of the store, not a peek and then the open.
            var refusal: TabKeepError?
            let environment: Environment
            do {
                environment = try Environment.open(
                    path: path, configuration: configuration, probing: Records.meta,
                    key: Records.MetaKey.schema
                ) { schema in
                    guard let schema else { return true }
                    do throws(TabKeepError) {
                        try Self.checkSchema(schema)
                        return true
                    } catch {
                        refusal = error
                        return false
                    }
                }
            } catch {
                throw refusal ?? TabKeepError.wrap(error)
            }
            self.environment = environment
            func required(_ name: String) throws(TabKeepError) -> Database {
                do {
                    return try environment.database(name)
                } catch {
                    throw .missingDatabase(name)
                }
            }
            meta = try required(Records.meta)
            documents = try required(Records.documents)
            dots = try required(Records.dots)
            versions = try required(Records.versions)
            catalogsDatabase = try required(Records.catalogs)
            changeLog = try? environment.database(Records.changes)
        } catch {
            throw TabKeepError.wrap(error)
        }
        let opened = try Self.initializeMeta(
            environment, meta: meta, documents: documents, readOnly: options.readOnly)
        identity = Mutex(opened.replica)
        createdMilliseconds = opened.created
        if !options.readOnly {
            try applyFileProtection(options.fileProtection, path: environment.path)
            // Both read their record again inside their write transaction before acting on it.
            if opened.schema == 1 { try migrateIfNeeded() }
            if opened.isCopy { try takeFreshIdentityIfCopy() }
        }
    }

    deinit {
        watchers.stop()
    }

    /// The mode `meta` records for a data file that came without the lock file of either mode (a
    /// copy of `data.mdb` alone: no process can be using it), lmdb for such a store made before
    /// the mode was recorded, or nil for every other directory.
    private static func recordedLocking(_ path: String) throws(LMDBError) -> Locking? {
        let lockFiles = ["lock.mdb", Environment.transactionLockFileName]
        guard access(path + "/data.mdb", F_OK) == 0,
            lockFiles.allSatisfy({ access(path + "/" + $0, F_OK) != 0 })
        else { return nil }
        guard try Environment.peek(path: path, database: Records.meta, key: Records.MetaKey.schema) != nil
        else {
            return nil
        }
        let recorded = try Environment.peek(path: path, database: Records.meta, key: Records.MetaKey.locking)
        return recorded.map { Locking(rawValue: String(decoding: $0, as: UTF8.self)) ?? .lmdb } ?? .lmdb
    }

    /// Whether `path` is a regular file of zero bytes (stat, no Foundation round trip).
    private static func isEmptyFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && status.st_size == 0
    }

    private static func checkSchema(_ bytes: [UInt8]) throws(TabKeepError) {
        guard let schema = Records.uint64(bytes) else {
            throw .corruptMeta("schema is \(bytes.count) bytes, not 8")
        }
        guard schema <= Records.schemaVersion else {
            throw .newerSchema(found: Int(clamping: schema), supported: Records.schemaVersion)
        }
    }

    /// What an open reads of `meta`: the identity, the schema and whether the store is a backup copy.
    private struct OpenedMeta {
        var replica: ReplicaID
        var created: UInt64
        var schema: UInt64
        var isCopy: Bool
        /// The recorded locking mode's name, nil in a store made before it was recorded.
        var locking: String? = nil
    }

    /// Reads `meta` in one read transaction, writing it first when the store is new.
    private static func initializeMeta(
        _ env: Environment, meta: Database, documents: Database, readOnly: Bool
    )
        throws(TabKeepError)
        -> OpenedMeta
    {
        do {
            if let existing = try env.read({ txn in try readOpenedMeta(txn, meta: meta) }) {
                try checkLocking(existing, env)
                return existing
            }
            if readOnly {
                throw TabKeepError.corruptMeta(
                    "meta holds no schema or replica id (damaged, or not a TabKeep store); opened read-only, nothing was written"
                )
            }
            return try env.write { txn in
                if let existing = try readOpenedMeta(txn, meta: meta) { return existing }
                let replica = ReplicaID.random()
                let created = HybridLogicalClock.wallMilliseconds()
                try txn.put(
                    meta, key: Records.MetaKey.schema, value: Records.bigEndian(UInt64(Records.schemaVersion))
                )
                try txn.put(meta, key: Records.MetaKey.replica, value: Records.bigEndian(replica.rawValue))
                try txn.put(meta, key: Records.MetaKey.clock, value: Records.bigEndian(0))
                try txn.put(meta, key: Records.MetaKey.created, value: Records.bigEndian(created))
                try txn.put(meta, key: Records.MetaKey.locking, value: Array(env.locking.rawValue.utf8))
                return OpenedMeta(
                    replica: replica, created: created, schema: UInt64(Records.schemaVersion), isCopy: false)
            }
        } catch {
            throw TabKeepError.wrap(error)
        }
    }

    /// The identity, schema, copy mark and locking mode `meta` holds, or nil when it holds no schema.
    private static func readOpenedMeta(_ txn: borrowing Transaction, meta: Database) throws -> OpenedMeta? {
        guard let (replica, created) = try readIdentity(txn, meta: meta) else { return nil }
        return OpenedMeta(
            replica: replica, created: created,
            schema: try txn.get(meta, key: Records.MetaKey.schema).flatMap(Records.uint64) ?? 0,
            isCopy: try txn.contains(meta, key: Records.MetaKey.copyOf),
            locking: try txn.get(meta, key: Records.MetaKey.locking).map {
                String(decoding: $0, as: UTF8.self)
            })
    }

    /// Throws when the mode the store recorded at its creation is not the one its directory shows:
    /// a per-transaction store whose lock file was lost opened in lmdb mode.
    private static func checkLocking(_ opened: OpenedMeta, _ env: Environment) throws(TabKeepError) {
        guard let recorded = opened.locking, recorded != env.locking.rawValue else { return }
        guard recorded == Locking.perTransaction.rawValue else {
            if Locking(rawValue: recorded) == nil {
                throw .corruptMeta("unknown locking mode \"\(recorded)\"")
            }
            return  // an lmdb store is never opened per-transaction: its directory has no lock file
        }
        throw .invalidDirectory(
            path: env.path,
            reason:
                "it was created in per-transaction locking mode but its lock file \(Environment.transactionLockFileName) is missing; nothing was written (with no process using the store, create that empty file to open it)"
        )
    }

    private static func readIdentity(_ txn: borrowing Transaction, meta: Database) throws -> (
        ReplicaID, UInt64
    )? {
        guard let schemaBytes = try txn.get(meta, key: Records.MetaKey.schema) else { return nil }
        try checkSchema(schemaBytes)
        guard let replica = try txn.get(meta, key: Records.MetaKey.replica).flatMap(Records.uint64),
            replica != 0
        else { throw TabKeepError.corruptMeta("replica id missing or malformed") }
        let created = try txn.get(meta, key: Records.MetaKey.created).flatMap(Records.uint64) ?? 0
        return (ReplicaID(rawValue: replica), created)
    }

    // MARK: Replica state, read and written inside every write transaction

    /// This replica's writer state, as committed (shared by every process on the store).
    func loadWriter(_ txn: borrowing Transaction) throws -> Writer {
        guard let clock = try txn.get(meta, key: Records.MetaKey.clock).flatMap(Records.uint64) else {
            throw TabKeepError.corruptMeta("clock missing or malformed")
        }
        // The id as committed, not as this process last saw it: another process may have restored a
        // dump (replace) and taken a fresh id since, and writing under the retired one would reuse
        // sequences its peers already hold.
        guard let raw = try txn.get(meta, key: Records.MetaKey.replica).flatMap(Records.uint64), raw != 0
        else {
            throw TabKeepError.corruptMeta("replica id missing or malformed")
        }
        let id = ReplicaID(rawValue: raw)
        if id != replicaID { identity.withLock { $0 = id } }
        return Writer(id: id, clock: HybridLogicalClock(last: Stamp(rawValue: clock)))
    }

    /// The replica that writes `profile`'s entries: the shared clock and the profile's next sequence.
    func replica(for profile: ProfileID, _ writer: inout Writer, _ txn: borrowing Transaction) throws
        -> Replica
    {
        let sequence = try writer.sequences[profile] ?? readSequence(txn, profile, writer.id)
        return Replica(id: writer.id, clock: writer.clock, sequence: sequence)
    }

    /// Takes back what writing `profile` used from `replica`: its clock and its sequence.
    func absorb(_ replica: Replica, for profile: ProfileID, into writer: inout Writer) {
        writer.clock = replica.clock
        writer.sequences[profile] = replica.sequence
    }

    /// Writes the clock, every version the transaction raised (this replica's own sequences
    /// included), each `versions` record read and written once, and the change-log records of
    /// `changed`. Fails with ``TabKeepError/clockExhausted`` when the clock reached its end.
    @discardableResult
    func saveWriter(
        _ txn: borrowing Transaction, _ writer: Writer, raising raises: VersionRaises, changed: [DocumentKey]
    ) throws -> ClosedRange<UInt64>? {
        if writer.clock.last >= Stamp.last { throw TabKeepError.clockExhausted }
        try txn.put(meta, key: Records.MetaKey.clock, value: Records.bigEndian(writer.clock.last.rawValue))
        var raises = raises
        for (profile, sequence) in writer.sequences { raises.raise(profile, writer.id, to: sequence) }
        for (profile, replicas) in raises.highest.sorted(by: { $0.key < $1.key }) {
            for (replica, sequence) in replicas.sorted(by: { $0.key < $1.key }) {
                try raiseVersion(txn, profile, replica, to: sequence)
            }
        }
        return try appendToChangeLog(txn, changed)
    }

    func raiseVersion(
        _ txn: borrowing Transaction, _ profile: ProfileID, _ replica: ReplicaID, to sequence: UInt64
    )
        throws
    {
        let key = Records.versionKey(profile, replica)
        let current = try txn.get(versions, key: key).flatMap(Records.uint64) ?? 0
        if sequence > current { try txn.put(versions, key: key, value: Records.bigEndian(sequence)) }
    }

    /// The highest sequence of `replica` that `profile`'s vector holds.
    func readSequence(_ txn: borrowing Transaction, _ profile: ProfileID, _ replica: ReplicaID) throws
        -> UInt64
    {
        try txn.get(versions, key: Records.versionKey(profile, replica)).flatMap(Records.uint64) ?? 0
    }

    /// Records that `keys` changed, under the next revisions, and drops records past the limit, so
    /// other processes' ``changes()`` find them with one range scan.
    func appendToChangeLog(_ txn: borrowing Transaction, _ keys: [DocumentKey]) throws -> ClosedRange<UInt64>?
    {
        guard !keys.isEmpty else { return nil }
        guard let changeLog else { throw TabKeepError.missingDatabase(Records.changes) }
        var revision = try txn.get(meta, key: Records.MetaKey.revision).flatMap(Records.uint64) ?? 0
        let first = revision + 1
        for key in keys {
            revision += 1
            try txn.put(changeLog, key: Records.bigEndian(revision), value: key.bytes)
            if revision > Records.changeLogLimit {
                try txn.delete(changeLog, key: Records.bigEndian(revision - Records.changeLogLimit))
            }
        }
        try txn.put(meta, key: Records.MetaKey.revision, value: Records.bigEndian(revision))
        return first...revision
    }

    // MARK: Documents

    /// The stored document of `key`, or nil.
    func loadDocument(_ txn: borrowing Transaction, _ key: DocumentKey) throws -> TabBarDocument? {
        try txn.withValue(documents, key: key.bytes) { bytes throws(TabKeepError) -> TabBarDocument? in
            guard let bytes else { return nil }
            do throws(DocumentDecodingError) {
                return try TabBarDocument(decoding: bytes)
            } catch {
                throw .corruptDocument(key, error)
            }
        }
    }

    /// Writes `document` under `key`, keeping `dots` and `versions` in step: dots that left the
    /// document are dropped, new ones added and counted into `raises` (written by `saveReplica`).
    ///
    /// Both dot lists are sorted, so the difference is one merge walk, and new dots are put in
    /// key order. With `appending` (a bulk load into emptied `dots` and `documents`, in key
    /// order), each key is first tried with `MDB_APPEND`, which skips the tree search; a key
    /// that is not past the last one (two bars of one profile) falls back to a plain put.
    @discardableResult
    func saveDocument(
        _ txn: borrowing Transaction, _ key: DocumentKey, _ document: TabBarDocument,
        previous: TabBarDocument?,
        raising raises: inout VersionRaises, appending: Bool = false
    ) throws -> [Dot] {
        let keyBytes = key.bytes
        let bar = Array(key.bar.rawValue.utf8)
        let new = Self.unique(document.dots)
        let old = previous.map { Self.unique($0.dots) } ?? []
        // A superseded clear's context lives on in the merged clear: keep its dot findable.
        let keptClear = document.entries.last?.key == .cleared ? Self.clearDot(previous) : nil
        var added: [Dot] = []
        added.reserveCapacity(new.count)
        var oldIndex = 0
        var newIndex = 0
        while oldIndex < old.count || newIndex < new.count {
            if newIndex == new.count || (oldIndex < old.count && old[oldIndex] < new[newIndex]) {
                let dot = old[oldIndex]
                if dot != keptClear { try txn.delete(dots, key: Records.dotKey(key.profile, dot)) }
                oldIndex += 1
            } else if oldIndex == old.count || new[newIndex] < old[oldIndex] {
                let dot = new[newIndex]
                try Self.put(
                    txn, dots, key: Records.dotKey(key.profile, dot), value: bar, appending: appending)
                // Added dots are sorted: each replica's last one is its highest, raised once.
                if let last = added.last, last.replica != dot.replica {
                    raises.raise(key.profile, last.replica, to: last.sequence)
                }
                added.append(dot)
                newIndex += 1
            } else {
                oldIndex += 1
                newIndex += 1
            }
        }
        if let last = added.last { raises.raise(key.profile, last.replica, to: last.sequence) }
        try Self.put(txn, documents, key: keyBytes, value: document.encoded(), appending: appending)
        return added
    }

    /// A put, tried first with `MDB_APPEND` when `appending`.
    private static func put(
        _ txn: borrowing Transaction, _ database: Database, key: [UInt8], value: [UInt8], appending: Bool
    ) throws {
        if appending {
            do {
                try txn.put(database, key: key, value: value, options: .append)
                return
            } catch LMDBError.keyExists {
                // Not past the last key: put it where it belongs.
            }
        }
        try txn.put(database, key: key, value: value)
    }

    /// A sorted list without repeats.
    private static func unique(_ sorted: [Dot]) -> [Dot] {
        var result = sorted
        var last: Dot?
        result.removeAll { dot in
            defer { last = dot }
            return dot == last
        }
        return result
    }

    /// The dot of a document's clear, if it has one.
    static func clearDot(_ document: TabBarDocument?) -> Dot? {
        guard let last = document?.entries.last, last.key == .cleared else { return nil }
        return last.dot
    }

    /// Indexes the dot of an incoming clear that lost to the stored one (its context was merged
    /// in), so peers lacking that dot still receive the grown context.
    @discardableResult
    func keepClearDot(
        _ txn: borrowing Transaction, _ key: DocumentKey, incoming: TabBarDocument, merged: TabBarDocument,
        raising raises: inout VersionRaises
    ) throws -> [Dot] {
        guard let dot = Self.clearDot(incoming), dot != Self.clearDot(merged) else { return [] }
        let dotKey = Records.dotKey(key.profile, dot)
        guard try txn.get(dots, key: dotKey) == nil else { return [] }
        try txn.put(dots, key: dotKey, value: Array(key.bar.rawValue.utf8))
        raises.raise(key.profile, dot.replica, to: dot.sequence)
        return [dot]
    }

    // MARK: Reads

    /// The layout of `profile`'s `bar` as the user sees it, resolved against `catalog` (or the
    /// catalog registered for the bar). One LMDB get and a layout-only decode (`LayoutDecoder`,
    /// which refuses exactly what the full decoder refuses); the registered catalog is decoded once
    /// and reused while its record's bytes stay the same. A profile never seen has the catalog's
    /// default layout.
    public func layout(_ profile: ProfileID, bar: BarID = .main, catalog: Catalog? = nil) throws(TabKeepError)
        -> Layout
    {
        let key = DocumentKey(profile: profile, bar: bar)
        return try read { txn in
            let resolvedCatalog = try catalog ?? registeredCatalog(txn, bar: bar)
            return try key.withBytes { keyBytes in
                try txn.withValue(documents, rawKey: keyBytes) { bytes throws(TabKeepError) -> Layout in
                    guard let bytes else { return TabBarDocument().layout(catalog: resolvedCatalog) }
                    return try LayoutDecoder.layout(
                        storedBytes: bytes, key: key, catalog: resolvedCatalog)
                }
            }
        }
    }

    /// The stored document of `profile`'s `bar` (all its entries), or nil if none.
    public func document(_ profile: ProfileID, bar: BarID = .main) throws(TabKeepError) -> TabBarDocument? {
        let key = DocumentKey(profile: profile, bar: bar)
        return try read { txn in try loadDocument(txn, key) }
    }

    /// Every profile with at least one bar that holds something, in key order.
    public func profiles() throws(TabKeepError) -> [ProfileID] {
        var result: [ProfileID] = []
        for key in try documentKeys() where result.last != key.profile {
            result.append(key.profile)
        }
        return result
    }

    /// The bars of `profile` that hold something, in key order.
    public func bars(of profile: ProfileID) throws(TabKeepError) -> [BarID] {
        try documentKeys(prefix: Array(profile.rawValue.utf8) + [0]).map(\.bar)
    }

    /// The keys of documents that hold entries (an erased bar keeps only its clear, and is left out).
    func documentKeys(prefix: [UInt8] = []) throws(TabKeepError) -> [DocumentKey] {
        return try read { txn in try documentKeys(txn, prefix: prefix) }
    }

    /// The keys of documents that hold entries, as `txn` sees them.
    func documentKeys(_ txn: borrowing Transaction, prefix: [UInt8]) throws -> [DocumentKey] {
        var keys: [DocumentKey] = []
        try txn.forEach(documents, in: .prefix(prefix)) { key, value in
            let documentKey = try DocumentKey(bytes: key)
            let document: TabBarDocument
            do {
                document = try TabBarDocument(decoding: value)
            } catch {
                keys.append(documentKey)  // a corrupt document is still listed, so it gets reported
                return true
            }
            // Tombstones beside a clear are an erased bar.
            if document.entries.contains(where: { $0.key != .cleared && $0.value != .removed }) {
                keys.append(documentKey)
            }
            return true
        }
        return keys
    }

    // MARK: Catalogs

    /// Registers `catalog` as the app's current catalog for `bar`, so tools resolve layouts without the app.
    public func registerCatalog(_ catalog: Catalog, for bar: BarID = .main) throws(TabKeepError) {
        try write { txn in
            try txn.put(catalogsDatabase, key: Array(bar.rawValue.utf8), value: catalog.encoded())
        }
    }

    /// The catalog last registered for `bar`, or nil.
    public func catalog(for bar: BarID = .main) throws(TabKeepError) -> Catalog? {
        return try read { txn in try storedCatalogIfAny(txn, bar: bar) }
    }

    /// Every registered catalog, by bar, in key order.
    public func catalogs() throws(TabKeepError) -> [(bar: BarID, catalog: Catalog)] {
        return try read { txn in
            var result: [(bar: BarID, catalog: Catalog)] = []
            try txn.forEach(catalogsDatabase) { key, value in
                let bar = try BarID(String(decoding: key, as: UTF8.self))
                do throws(DocumentDecodingError) {
                    result.append((bar, try Catalog(decoding: value)))
                } catch {
                    throw TabKeepError.corruptCatalog(bar, error)
                }
                return true
            }
            return result
        }
    }

    func storedCatalogIfAny(_ txn: borrowing Transaction, bar: BarID) throws -> Catalog? {
        try txn.withValue(catalogsDatabase, key: Array(bar.rawValue.utf8)) {
            bytes throws(TabKeepError) -> Catalog? in
            guard let bytes else { return nil }
            do throws(DocumentDecodingError) {
                return try Catalog(decoding: bytes)
            } catch {
                throw .corruptCatalog(bar, error)
            }
        }
    }

    func storedCatalog(_ txn: borrowing Transaction, bar: BarID) throws -> Catalog {
        guard let catalog = try storedCatalogIfAny(txn, bar: bar) else { throw TabKeepError.noCatalog(bar) }
        return catalog
    }

    // MARK: Figures

    /// The highest sequence this store has seen from each replica in any profile: a summary for
    /// people and tools. Sync compares each profile's own vector (``versionVectors(_:)``).
    public func versionVector() throws(TabKeepError) -> VersionVector {
        var summary = VersionVector()
        for vector in try versionVectors(.all).values { summary.merge(vector) }
        return summary
    }

    /// The version vector of each profile in `scope` that this store holds anything of (every
    /// listed profile, empty when the store holds nothing of it).
    public func versionVectors(_ scope: ProfileScope = .all) throws(TabKeepError) -> [ProfileID:
        VersionVector]
    {
        return try read { txn in try readVectors(txn, scope) }
    }

    /// `profile`'s version vector: for each replica, the highest sequence of it in this profile that
    /// the store holds or has seen superseded.
    func readVector(_ txn: borrowing Transaction, _ profile: ProfileID) throws -> VersionVector {
        var vector = VersionVector()
        let prefix = Records.profilePrefix(profile)
        try txn.forEach(versions, in: .prefix(prefix)) { key, value in
            let (profileCount, replica, sequence) = try Self.versionRecord(key, value)
            guard profileCount + 1 == prefix.count else {
                throw TabKeepError.corruptMeta("malformed versions record")
            }
            Self.set(&vector, replica, sequence)
            return true
        }
        return vector
    }

    func readVectors(_ txn: borrowing Transaction, _ scope: ProfileScope) throws -> [ProfileID: VersionVector]
    {
        var result: [ProfileID: VersionVector] = [:]
        for (profile, vector) in try readVectorList(txn, scope) { result[profile] = vector }
        return result
    }

    /// The schema version of this store's records.
    public static var schemaVersion: Int { Records.schemaVersion }
}

/// This replica inside one write transaction: the clock every profile shares and the sequence each
/// profile it wrote has reached.
struct Writer {
    let id: ReplicaID
    var clock: HybridLogicalClock
    var sequences: [ProfileID: UInt64] = [:]
}

/// The highest sequence per (profile, replica) that one write transaction added: `versions` is
/// raised once per pair at the end of the transaction instead of a get and a put per document.
struct VersionRaises {
    private(set) var highest: [ProfileID: [ReplicaID: UInt64]] = [:]

    mutating func raise(_ profile: ProfileID, _ replica: ReplicaID, to sequence: UInt64) {
        if sequence > highest[profile]?[replica] ?? 0 { highest[profile, default: [:]][replica] = sequence }
    }
}

/// Which profiles an exchange, a delta or a vector read covers.
public enum ProfileScope: Hashable, Sendable {
    /// Every profile either side holds.
    case all
    /// Only these profiles: nothing of any other is read, sent, written or revealed.
    case only(Set<ProfileID>)

    /// Whether `profile` is in the scope.
    public func contains(_ profile: ProfileID) -> Bool {
        switch self {
        case .all: true
        case .only(let profiles): profiles.contains(profile)
        }
    }
}
