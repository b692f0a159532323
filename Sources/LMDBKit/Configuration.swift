/// How an ``Environment`` is opened.
///
/// ```swift
/// var configuration = Configuration(databases: ["meta", "documents"])
/// configuration.durability = .metaAsync
/// let env = try Environment.open(path: "/tmp/store", configuration: configuration)
/// ```
public struct Configuration: Hashable, Sendable {
    /// The named databases, created if missing and opened once when the environment opens.
    public var databases: [String]
    /// The most named databases the environment can hold (`mdb_env_set_maxdbs`): at least the
    /// number of ``databases``, more to leave room for tools that open others.
    public var maxDatabases: Int
    /// The most reader slots (concurrent read transactions across all processes). Wraps `mdb_env_set_maxreaders`.
    public var maxReaders: Int
    /// The map size to start with, in bytes; the map doubles on demand up to ``maxMapSize``.
    public var initialMapSize: Int
    /// The largest the map may grow to, in bytes. A write that needs more fails with ``LMDBError/mapFull``.
    public var maxMapSize: Int
    /// When a commit reaches the disk.
    public var durability: Durability
    /// The mode of the data and lock files (and of the directory, plus execute bits, when created).
    public var fileMode: UInt16
    /// Open `MDB_RDONLY`: nothing is created (not the directory, not a missing named database, which
    /// is then left out of the environment's databases), and every write throws. Readers still take
    /// a slot in `lock.mdb`, as LMDB's readers always do.
    public var readOnly = false
    /// The locking mode to create a new store in, or nil for ``Locking/defaultForNewStores()``. An
    /// existing store keeps the mode it was created in: nil follows it, and naming the other mode
    /// throws ``LMDBError/lockingMismatch(path:store:requested:)``.
    public var locking: Locking?
    /// Open an existing store `MDB_RDONLY` and reopen it for writing at its first write (or
    /// ``Environment/reserveMapSize(atLeast:)``), so an open that only reads costs a read-only
    /// open: LMDB's writable open allocates and zeroes its write buffers (2 MiB of dirty-page
    /// list) whether or not anything is ever written. A new store, or one missing a named
    /// database, is opened for writing at once. Ignored with ``readOnly``.
    public var writableOnFirstWrite = false
    /// In per-transaction mode, whether transactions take the transaction lock (always, but for
    /// the test that shows what goes wrong without it: `MDB_NOLOCK` alone).
    package var perTransactionCoordination = true

    /// A configuration with the given named databases and defaults for everything else:
    /// room for just those databases, 126 readers, a 1 MiB map growing to 64 GiB, `.full`
    /// durability, files mode 0600, and the store's own locking mode (a new store's: the platform's).
    public init(
        databases: [String] = [],
        maxDatabases: Int? = nil,
        maxReaders: Int = 126,
        initialMapSize: Int = 1 << 20,
        maxMapSize: Int = 64 << 30,
        durability: Durability = .full,
        fileMode: UInt16 = 0o600,
        locking: Locking? = nil
    ) {
        self.locking = locking
        self.databases = databases
        self.maxDatabases = max(maxDatabases ?? 0, databases.count, 1)
        self.maxReaders = maxReaders
        self.initialMapSize = initialMapSize
        self.maxMapSize = maxMapSize
        self.durability = durability
        self.fileMode = fileMode
    }
}

/// When a committed transaction is on disk.
public enum Durability: String, Hashable, Sendable, CaseIterable {
    /// Every commit is flushed with fsync before it returns (the default).
    case full
    /// `MDB_NOMETASYNC`: data pages are flushed but the meta page is not; the store is always
    /// consistent, and an operating-system crash may undo the last commit.
    case metaAsync
    /// `MDB_NOSYNC`: nothing is flushed until ``Environment/sync()``; an operating-system crash may
    /// undo every commit since, but a crash of the process alone loses nothing.
    case deferred
}
