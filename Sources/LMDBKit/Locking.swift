#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the processes that share an environment keep out of each other's way: a property of the
/// store, chosen when it is created and followed by every later open.
///
/// ```swift
/// var configuration = Configuration(databases: ["items"])
/// configuration.locking = .perTransaction   // for a new store; an existing one keeps its own
/// let env = try Environment.open(path: dir, configuration: configuration)
/// print(env.locking)
/// ```
///
/// - ``lmdb``: LMDB's own `lock.mdb`, a reader table and process-shared mutexes, with POSIX locks
///   held for as long as the environment is open. Readers never wait for the writer. The default
///   on Linux.
/// - ``perTransaction``: `MDB_NOLOCK`, and LMDBKit takes an `fcntl` lock on a lock file of its
///   own, ``Environment/transactionLockFileName``, for exactly one transaction's life: shared for
///   a read, exclusive for a write. Nothing is held between transactions, no semaphore or shared
///   mutex is used, and the kernel releases a dead process's lock. Readers wait for a writer of
///   any process, and a writer for every reader. The default on Apple platforms, where stock LMDB
///   cannot set up its locks inside the iOS sandbox and lifetime locks get a suspended app killed
///   (`0xdead10cc`).
///
/// Why a read may never outlive a write there: without a reader table, LMDB's writer treats every
/// snapshot older than the last two commits as free and reuses its pages, so a read that lived
/// across three commits of another process could see them change under it.
///
/// The store records its mode: a store whose directory holds ``Environment/transactionLockFileName``
/// is in `perTransaction` mode, one that holds LMDB's `lock.mdb` in `lmdb` mode. Asking for the
/// other mode throws ``LMDBError/lockingMismatch(path:store:requested:)``; two modes are never
/// mixed. A data file copied alone (no lock file of either kind) carries no mode at this level:
/// no process can be using it, and it opens in the mode asked for (TabKeep asks for the one its
/// `meta` records).
public enum Locking: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// LMDB's own lock file and reader table (`lock.mdb`).
    case lmdb = "lmdb"
    /// `MDB_NOLOCK` plus an `fcntl` lock held for one transaction's life.
    case perTransaction = "per-transaction"

    /// The mode a new store takes when the caller names none: ``perTransaction`` on Apple
    /// platforms, ``lmdb`` elsewhere.
    public static var platformDefault: Locking {
        #if canImport(Darwin)
            .perTransaction
        #else
            .lmdb
        #endif
    }

    /// The mode a new store takes when the caller names none: the `TABKEEP_LOCKING` environment
    /// variable's (`lmdb` or `per-transaction`, so a deployment or a test run can choose for every
    /// process at once), else ``platformDefault``. Any other value of the variable throws
    /// ``LMDBError/unknownLockingMode(_:)``, so a typo never silently picks the other mode.
    public static func defaultForNewStores() throws(LMDBError) -> Locking {
        guard let name = getenv("TABKEEP_LOCKING").map({ String(cString: $0) }), !name.isEmpty else {
            return platformDefault
        }
        guard let named = Locking(rawValue: name) else { throw LMDBError.unknownLockingMode(name) }
        return named
    }

    /// The name the tool and the JSON outputs use: `lmdb` or `per-transaction`.
    public var description: String { rawValue }
}
