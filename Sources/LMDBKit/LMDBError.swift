// LMDB's C API: Debian's liblmdb on Linux, LMDB compiled from source on Apple platforms.
#if canImport(LMDB)
    internal import LMDB
#else
    internal import CLMDB
#endif

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Every way an LMDB call can fail: one case per `MDB_*` return code, plus operating-system errors
/// and the checks LMDBKit makes before LMDB sees a value.
///
/// ```swift
/// do {
///     try env.write { txn in try txn.put(db, key: key, value: value) }
/// } catch LMDBError.mapFull {
///     print("the store reached its maximum size")
/// }
/// ```
///
/// `description` is `mdb_strerror`'s text for the code, or LMDBKit's own sentence for its checks.
public enum LMDBError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `MDB_KEYEXIST`: the key/data pair already exists (a put with `noOverwrite`).
    case keyExists
    /// `MDB_NOTFOUND`: no matching key/data pair.
    case notFound
    /// `MDB_PAGE_NOTFOUND`: a requested page was not found; usually corruption.
    case pageNotFound
    /// `MDB_CORRUPTED`: a located page was of the wrong type.
    case corrupted
    /// `MDB_PANIC`: the environment had a fatal error and must be closed.
    case panic
    /// `MDB_VERSION_MISMATCH`: the environment was made by an incompatible liblmdb.
    case versionMismatch
    /// `MDB_INVALID`: the file is not an LMDB file.
    case invalidFile
    /// `MDB_MAP_FULL`: the map reached its configured maximum size.
    case mapFull
    /// `MDB_DBS_FULL`: more named databases than the environment was opened for.
    case databasesFull
    /// `MDB_READERS_FULL`: every reader slot is taken.
    case readersFull
    /// `MDB_TLS_FULL`: too many thread-local keys (Windows only).
    case tlsFull
    /// `MDB_TXN_FULL`: the transaction has too many dirty pages.
    case transactionFull
    /// `MDB_CURSOR_FULL`: the cursor stack is too deep (internal error).
    case cursorFull
    /// `MDB_PAGE_FULL`: a page has not enough space (internal error).
    case pageFull
    /// `MDB_MAP_RESIZED`: another process grew the map beyond this one's size.
    case mapResized
    /// `MDB_INCOMPATIBLE`: the operation and the database are incompatible.
    case incompatible
    /// `MDB_BAD_RSLOT`: invalid reuse of a reader slot.
    case badReaderSlot
    /// `MDB_BAD_TXN`: the transaction must abort, has a child, or is invalid.
    case badTransaction
    /// `MDB_BAD_VALSIZE`: unsupported size of a key, database name or value.
    case badValueSize
    /// `MDB_BAD_DBI`: a database handle changed unexpectedly.
    case badDatabaseHandle
    /// Another `MDB_*` code this version of LMDBKit does not name.
    case other(code: Int32)
    /// An operating-system error (`errno`), such as `ENOENT`, `EACCES` or `ENOSPC`.
    case system(errno: Int32)
    /// A key was empty; LMDB keys are 1 to `maxKeySize` bytes.
    case emptyKey
    /// A key was longer than the environment's `maxKeySize`.
    case keyTooLong(size: Int, limit: Int)
    /// A named database that was not opened with the environment.
    case unknownDatabase(String)
    /// A write transaction was started inside another transaction on the same thread.
    case nestedTransaction
    /// A write was attempted in a read-only transaction.
    case readOnlyTransaction
    /// A backup destination that is not an empty directory.
    case destinationNotEmpty(String)
    /// A backup destination that is a symbolic link: a backup never goes through one.
    case destinationIsSymbolicLink(String)
    /// The path is already open in this process with another value of `setting` (durability,
    /// maximum map size, reader count, database count or file mode); one path has one configuration.
    case configurationMismatch(path: String, setting: String)
    /// The environment was closed with ``Environment/close()``; open the path again for a new one.
    case closed(path: String)
    /// The `accept` check of ``Environment/open(path:configuration:probing:key:accept:)`` refused
    /// the store at `path`: the open created and wrote nothing, and closed its handle again.
    case openRefused(path: String)
    /// The store at `path` is in (or is open by another process in) the `store` locking mode, and
    /// the open asked for `requested`: two modes never share a store.
    case lockingMismatch(path: String, store: Locking, requested: Locking)
    /// `TABKEEP_LOCKING` names no locking mode (see ``Locking/defaultForNewStores()``).
    case unknownLockingMode(String)
    /// ``Environment/replaceFile(mapSize:_:)`` in `lmdb` mode while another process (`pid`, 0 when
    /// the system did not say) has the store at `path` open: nothing was changed.
    case inUseByAnotherProcess(path: String, pid: Int32)

    /// Maps an LMDB return code (`MDB_*` or an errno) to an error.
    init(code: Int32) {
        switch code {
        case MDB_KEYEXIST: self = .keyExists
        case MDB_NOTFOUND: self = .notFound
        case MDB_PAGE_NOTFOUND: self = .pageNotFound
        case MDB_CORRUPTED: self = .corrupted
        case MDB_PANIC: self = .panic
        case MDB_VERSION_MISMATCH: self = .versionMismatch
        case MDB_INVALID: self = .invalidFile
        case MDB_MAP_FULL: self = .mapFull
        case MDB_DBS_FULL: self = .databasesFull
        case MDB_READERS_FULL: self = .readersFull
        case MDB_TLS_FULL: self = .tlsFull
        case MDB_TXN_FULL: self = .transactionFull
        case MDB_CURSOR_FULL: self = .cursorFull
        case MDB_PAGE_FULL: self = .pageFull
        case MDB_MAP_RESIZED: self = .mapResized
        case MDB_INCOMPATIBLE: self = .incompatible
        case MDB_BAD_RSLOT: self = .badReaderSlot
        case MDB_BAD_TXN: self = .badTransaction
        case MDB_BAD_VALSIZE: self = .badValueSize
        case MDB_BAD_DBI: self = .badDatabaseHandle
        case let code where code > 0: self = .system(errno: code)
        default: self = .other(code: code)
        }
    }

    /// The LMDB return code this error stands for, or nil for LMDBKit's own checks.
    public var code: Int32? {
        switch self {
        case .keyExists: MDB_KEYEXIST
        case .notFound: MDB_NOTFOUND
        case .pageNotFound: MDB_PAGE_NOTFOUND
        case .corrupted: MDB_CORRUPTED
        case .panic: MDB_PANIC
        case .versionMismatch: MDB_VERSION_MISMATCH
        case .invalidFile: MDB_INVALID
        case .mapFull: MDB_MAP_FULL
        case .databasesFull: MDB_DBS_FULL
        case .readersFull: MDB_READERS_FULL
        case .tlsFull: MDB_TLS_FULL
        case .transactionFull: MDB_TXN_FULL
        case .cursorFull: MDB_CURSOR_FULL
        case .pageFull: MDB_PAGE_FULL
        case .mapResized: MDB_MAP_RESIZED
        case .incompatible: MDB_INCOMPATIBLE
        case .badReaderSlot: MDB_BAD_RSLOT
        case .badTransaction: MDB_BAD_TXN
        case .badValueSize: MDB_BAD_VALSIZE
        case .badDatabaseHandle: MDB_BAD_DBI
        case .other(let code): code
        case .system(let errno): errno
        case .emptyKey, .keyTooLong, .unknownDatabase, .nestedTransaction, .readOnlyTransaction,
            .destinationNotEmpty, .destinationIsSymbolicLink, .configurationMismatch, .closed, .openRefused,
            .lockingMismatch, .unknownLockingMode, .inUseByAnotherProcess:
            nil
        }
    }

    /// `mdb_strerror`'s text for LMDB codes and errnos; LMDBKit's own sentence for its checks.
    public var description: String {
        switch self {
        case .emptyKey:
            return "empty key: LMDB keys must be at least 1 byte"
        case .keyTooLong(let size, let limit):
            return "key of \(size) bytes is longer than the limit of \(limit) bytes"
        case .unknownDatabase(let name):
            return "unknown database \"\(name)\": it was not opened with the environment"
        case .nestedTransaction:
            return "a write transaction cannot start inside another transaction on the same thread"
        case .readOnlyTransaction:
            return "a write was attempted in a read-only transaction"
        case .destinationNotEmpty(let path):
            return "backup destination \(path) is not an empty directory"
        case .configurationMismatch(let path, let setting):
            return
                "\(path) is already open in this process with another \(setting); open it with the same configuration"
        case .destinationIsSymbolicLink(let path):
            return "backup destination \(path) is a symbolic link; give the directory it points to"
        case .closed(let path):
            return "the environment at \(path) was closed; open the path again to use it"
        case .openRefused(let path):
            return "the store at \(path) was refused by the open's check; nothing was created or written"
        case .lockingMismatch(let path, let store, let requested):
            return
                "the store at \(path) uses \(store) locking and cannot be opened with \(requested) locking: open it in its own mode (two modes never share a store)"
        case .unknownLockingMode(let name):
            return "TABKEEP_LOCKING is \"\(name)\", which names no locking mode: use lmdb or per-transaction"
        case .inUseByAnotherProcess(let path, let pid):
            return
                "the store at \(path) is open in another process\(pid > 0 ? " (pid \(pid))" : ""); its file cannot be replaced while it is"
        default:
            return String(cString: mdb_strerror(code ?? 0))
        }
    }
}

/// Turns an LMDB return code into a result: every C call in LMDBKit goes through this.
@inline(__always)
func check(_ rc: Int32) throws(LMDBError) {
    if rc != 0 { throw LMDBError(code: rc) }
}
