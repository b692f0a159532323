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
    /// Where documents and versions (and an older store's dots) are: schema 3's `profiles` tree, or
    /// the old layout's three databases in a read-only open of a schema-1 or schema-2 store.
    let spaces: RecordSpaces
    var documents: Database { spaces.documents }
    var dots: Database { spaces.dots }
    var versions: Database { spaces.versions }
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
        // One stat(2) of the data file (links followed): whether it is there and whether it is
        // empty. Only without one can `path` be a file, checked then.
        let files = StoreFiles(path)
        var dataFile = stat()
        let hasDataFile = stat(files.data, &dataFile) == 0
        if !hasDataFile {
            var status = stat()
            if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
                throw .invalidDirectory(path: path, reason: "it is a file, not a directory")
            }
        }
        // The old layout of a schema-1 or schema-2 store that this writing open migrates.
        var migrating: RecordSpaces?
        // The `meta` records the open's first transaction read (nil: the store was open here already).
        var probed: [[UInt8]?]?
        do {
            // An empty data.mdb would be made a fresh store by a writing open: check it apart, as
            // before, so it is still refused.
            if hasDataFile, dataFile.st_mode & S_IFMT == S_IFREG, dataFile.st_size == 0,
                let schema = try Environment.peek(
                    path: path, database: Records.meta, key: Records.MetaKey.schema)
            {
                try Self.checkSchema(schema)
            }
            var configuration = Configuration(
                databases: Records.all, maxDatabases: Records.maxDatabases,
                initialMapSize: options.initialMapSize, maxMapSize: options.maxMapSize,
                durability: options.durability,
                locking: try options.locking ?? Self.recordedLocking(files, hasDataFile: hasDataFile))
            configuration.readOnly = options.readOnly
            // An app's launch reads: the writable handle (and its write buffers) comes at the first write.
            configuration.writableOnFirstWrite = !options.readOnly
            if options.readOnly && !hasDataFile {
                throw TabKeepError.invalidDirectory(
                    path: path, reason: "there is no store (no data.mdb) to open read-only")
            }
            // The schema is checked in the open's first transaction, before anything is created:
            // one open and one map of the store, not a peek and then the open. A store of an older
            // schema is opened again with the old layout's databases, to read or to migrate.
            var refusal: TabKeepError?
            var legacy = false
            func open(_ configuration: Configuration) throws(LMDBError) -> Environment {
                try Environment.open(
                    path: path, configuration: configuration, probing: Records.meta, keys: Self.openedMetaKeys
                ) { values in
                    probed = values
                    guard let schema = values[Self.openedMetaKeys.firstIndex(of: Records.MetaKey.schema)!]
                    else {
                        return true
                    }
                    do throws(TabKeepError) {
                        try Self.checkSchema(schema)
                        if !legacy, let number = Records.uint64(schema), number < Records.firstTaggedSchema {
                            legacy = true
                            return false
                        }
                        return true
                    } catch {
                        refusal = error
                        return false
                    }
                }
            }
            let environment: Environment
            do {
                do {
                    environment = try open(configuration)
                } catch LMDBError.openRefused where legacy && refusal == nil {
                    configuration.databases = Records.legacy
                    environment = try open(configuration)
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
            catalogsDatabase = try required(Records.catalogs)
            changeLog = try? environment.database(Records.changes)
            if legacy {
                let old = RecordSpaces(
                    documents: try required(Records.documents), dots: try required(Records.dots),
                    versions: try required(Records.versions), tagged: false)
                if options.readOnly {
                    spaces = old
                } else {
                    let profiles = try required(Records.profiles)
                    spaces = RecordSpaces(
                        documents: profiles, dots: profiles, versions: profiles, tagged: true)
                    migrating = old
                }
            } else {
                let profiles = try required(Records.profiles)
                spaces = RecordSpaces(documents: profiles, dots: profiles, versions: profiles, tagged: true)
            }
        } catch {
            throw TabKeepError.wrap(error)
        }
        let opened = try Self.initializeMeta(
            environment, meta: meta, readOnly: options.readOnly, probed: probed)
        identity = Mutex(opened.replica)
        createdMilliseconds = opened.created
        if !options.readOnly {
            try applyFileProtection(options.fileProtection, path: environment.path)
            // Both read their records again inside their write transaction before acting on them.
            if let migrating {
                try Self.migrate(environment, meta: meta, from: migrating, to: spaces)
            } else if opened.schema < UInt64(Records.schemaVersion) {
                try Self.raiseSchema(environment, meta: meta, spaces: spaces)
            }
            if opened.isCopy { try takeFreshIdentityIfCopy() }
        }
    }

    deinit {
        watchers.stop()
    }

    /// The schema version of this store's records.
    public static var schemaVersion: Int { Records.schemaVersion }
}
