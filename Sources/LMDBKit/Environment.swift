// LMDB's C API: Debian's liblmdb on Linux, LMDB compiled from source on Apple platforms.
#if canImport(LMDB)
    internal import LMDB
#else
    internal import CLMDB
#endif
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open LMDB environment: one directory holding `data.mdb` and `lock.mdb`.
///
/// ```swift
/// let env = try Environment.open(path: dir, configuration: .init(databases: ["items"]))
/// let items = try env.database("items")
/// try env.write { txn in try txn.put(items, key: Array("a".utf8), value: [1, 2, 3]) }
/// let value = try env.read { txn in try txn.get(items, key: Array("a".utf8)) }
/// ```
///
/// Concurrency, stated: any number of read transactions run at once from any thread (the
/// environment is always opened with `MDB_NOTLS`, so reader slots follow the transaction, not the
/// thread); write transactions of this process are serialized by a lock taken before
/// `mdb_txn_begin`. Transactions are closures that cannot escape and cannot span an `await`.
/// In ``Locking/perTransaction`` mode a read also waits for a write of any process and a write
/// for every read (see ``Locking``).
///
/// One environment per path per process: LMDB forbids opening a path twice, so ``open(path:configuration:)``
/// hands back the live environment when the path is already open. The environment closes when
/// the last reference to it goes away, or at ``close()``.
///
/// ``suspend()`` closes the `MDB_env` (no lock, no descriptor left on the store's files) and keeps
/// the object: the next call that reaches LMDB reopens it, see `Environment+Suspend.swift`.
///
/// `@unchecked Sendable`: it owns an `MDB_env*`, which LMDB makes thread-safe with `MDB_NOTLS`.
public final class Environment: @unchecked Sendable {
    // The variables below that every transaction reads (`openHandle`, `openings`,
    // `openedGeneration`) are written only with `gate` held exclusive and read with it held
    // shared, so no access can overlap a write: Swift's dynamic exclusivity check on each read
    // (about 76 instructions each, three on every read transaction) is switched off for them.

    /// The `MDB_env*`, nil while suspended or closed: written only with `gate` held exclusive.
    @exclusivity(unchecked) var openHandle: OpaquePointer?
    /// How many times the `MDB_env` has been opened: 1, plus one for every reopen after
    /// ``suspend()``. Written with `gate` held exclusive, so stable inside any transaction.
    /// For this package's tests (a reopen is otherwise invisible), not API.
    @exclusivity(unchecked) package internal(set) var openings = 1
    /// The open `MDB_env*`; valid only inside a call that holds `gate` shared (see `enter()`).
    var handle: OpaquePointer { openHandle! }
    /// Held shared by every call that reaches LMDB, exclusive by suspend and close: they wait for
    /// every transaction of this environment to end.
    let gate = OpenGate()
    /// Set by ``close()``: every later call throws ``LMDBError/closed(path:)``.
    var isClosed = false
    /// The directory, as a canonical absolute path.
    public let path: String
    /// ``path`` as the registry's key, hashed once.
    let registryKey: EnvironmentRegistry.Key
    /// The configuration the environment was opened with.
    public let configuration: Configuration
    /// The longest key LMDB accepts, in bytes (`mdb_env_get_maxkeysize`, 511 by default).
    public let maxKeySize: Int
    let databases: DatabaseTable
    let writerLock = WriterLock()
    /// Reset read transactions ready to renew, as bit patterns (a pointer is not Sendable).
    let readerPool = Mutex<[UInt]>([])
    /// One more reset read transaction (0: none), taken and put back with one atomic operation
    /// each: a thread reading alone never touches ``readerPool``'s mutex.
    let pooledReader = Atomic<UInt>(0)
    /// How many reset read transactions ``readerPool`` keeps besides ``pooledReader``; each holds a
    /// reader slot.
    static let maxPooledReaders = 8
    let mapLock = MapLock()
    let depth = ThreadDepth()
    /// Opened `MDB_RDONLY` because the filesystem is read-only: reads work, writes throw `EROFS`.
    let isReadOnly: Bool
    /// The last transaction id seen at a suspend or close, for ``lastTransactionID`` after a close.
    let lastSeenTransactionID = Atomic<Int>(0)
    /// The store's locking mode, as recorded in it (see ``Locking``).
    public let locking: Locking
    /// The lock held for each transaction's life in ``Locking/perTransaction`` mode; nil in `lmdb`
    /// mode (and in the test that switches the coordination off).
    let transactionLock: TransactionLock?
    /// The data file's generation (``TransactionLock/generation``) when the handle was opened:
    /// a transaction that finds another one reopens first. Written with `gate` held exclusive.
    @exclusivity(unchecked) var openedGeneration: UInt64 = 0
    /// A descriptor on `lock.mdb` whose lock this process's LMDB lock rides on after a
    /// ``replaceFile(mapSize:_:)`` in `lmdb` mode (closing it would drop the handle's locks), or
    /// -1; closed right after the handle. Written with `gate` held exclusive.
    var retainedLockFile: Int32 = -1
    /// A handle of this package's own (a replacement's snapshot), outside the registry.
    let isPrivate: Bool
    /// While ``replaceFile(mapSize:_:)`` builds, the read-only handle on the current file that
    /// reads made inside the build (by its thread, the only one in a transaction then) go to.
    var replacementSnapshot: Environment?
    /// Whether the handle is open `MDB_RDONLY` until the first write
    /// (``Configuration/writableOnFirstWrite``). Written with `gate` held exclusive.
    var handleIsReadOnly = false

    /// The lock file of ``Locking/perTransaction`` mode, in the store's directory: its presence is
    /// how a store records that mode.
    public static let transactionLockFileName = StoreFiles.transactionLockName.description

    init(
        handle: OpaquePointer, path: String, configuration: Configuration, databases: DatabaseTable,
        isReadOnly: Bool, locking: Locking, transactionLock: TransactionLock?, generation: UInt64 = 0,
        isPrivate: Bool = false, handleIsReadOnly: Bool = false
    ) {
        self.handleIsReadOnly = handleIsReadOnly
        self.openedGeneration = generation
        self.isPrivate = isPrivate
        self.isReadOnly = isReadOnly
        self.locking = locking
        self.transactionLock = transactionLock
        self.openHandle = handle
        self.path = path
        self.registryKey = EnvironmentRegistry.Key(path)
        self.configuration = configuration
        self.databases = databases
        self.maxKeySize = Int(mdb_env_get_maxkeysize(handle))
    }

    deinit {
        abortPooledReaders()
        if isPrivate {
            if let handle = openHandle { mdb_env_close(handle) }
        } else if let handle = openHandle {
            // Until mdb_env_close returns, the path is closing: a concurrent open waits for it.
            let retained = retainedLockFile
            Environment.registry.closing(registryKey, handle: handle) {
                mdb_env_close(handle)
                if retained >= 0 { closeFile(retained) }
            }
        } else if !isClosed {
            Environment.registry.forget(registryKey, ObjectIdentifier(self))
        }
    }

    /// The handle of a named database opened with the environment.
    public func database(_ name: String) throws(LMDBError) -> Database {
        guard let database = databases[name] else { throw LMDBError.unknownDatabase(name) }
        return database
    }

    /// The names of the databases opened with the environment, sorted.
    public var databaseNames: [String] { databases.names }

    // MARK: Transactions

    /// Runs `body` in a read-only transaction over one consistent snapshot.
    ///
    /// Read transactions run concurrently with each other and with the writer, from any thread.
    /// Values handed out as pointers are valid only inside `body`.
    public func read<R>(_ body: (borrowing Transaction) throws -> R) throws -> R {
        let outer = depth.value
        // A read made while this thread builds a replacement reads the file being replaced.
        if outer != 0, let snapshot = replacementSnapshot { return try snapshot.read(body) }
        // Per-transaction mode: a read inside another transaction of this thread is covered by its lock.
        if outer == 0 { try enterForRead() }
        defer {
            if outer == 0 {
                transactionLock?.unlockShared()
                gate.unlock()
            }
        }
        depth.value = outer + 2
        defer { depth.value = outer }
        mapLock.lockShared()
        defer { mapLock.unlock() }
        let txn = try beginRead(nested: outer != 0)
        defer { endRead(txn) }
        return try body(Transaction(handle: txn, environment: self, isWritable: false))
    }

    /// Renews a pooled read transaction (`mdb_txn_renew`: it keeps its reader slot, so no slot is
    /// searched for and nothing allocated), or begins a new one.
    private func beginRead(nested: Bool) throws(LMDBError) -> OpaquePointer {
        var pooled = pooledReader.exchange(0, ordering: .acquiring)
        if pooled == 0 { pooled = readerPool.withLock { $0.popLast() } ?? 0 }
        if let txn = OpaquePointer(bitPattern: pooled) {
            if mdb_txn_renew(txn) == 0 { return txn }
            mdb_txn_abort(txn)  // MAP_RESIZED, say: begin() below adopts it
        }
        return try begin(readOnly: true, nested: nested)
    }

    /// Resets a finished read transaction into the pool (`mdb_txn_reset`), or aborts it when the pool is full.
    private func endRead(_ txn: OpaquePointer) {
        mdb_txn_reset(txn)
        let bits = UInt(bitPattern: txn)
        if pooledReader.compareExchange(expected: 0, desired: bits, ordering: .releasing).exchanged { return }
        let kept = readerPool.withLock { pool in
            guard pool.count < Self.maxPooledReaders else { return false }
            pool.append(bits)
            return true
        }
        if !kept { mdb_txn_abort(txn) }
    }

    /// Aborts every pooled read transaction, with no transaction of this environment open (the
    /// gate held exclusive, or the environment going away).
    func abortPooledReaders() {
        let single = pooledReader.exchange(0, ordering: .acquiring)
        if let txn = OpaquePointer(bitPattern: single) { mdb_txn_abort(txn) }
        for txn in readerPool.withLock({ pool in
            defer { pool = [] }
            return pool
        }) {
            mdb_txn_abort(OpaquePointer(bitPattern: txn))
        }
    }

    /// Runs `body` in a write transaction: it commits when `body` returns and aborts when it throws.
    ///
    /// Writers in this process are serialized. The closure may run more than once: when the map is
    /// full, the transaction is dropped, the map doubles (up to ``Configuration/maxMapSize``) and
    /// `body` runs again, so it must touch nothing outside its transaction. Starting a write inside
    /// another transaction on the same thread throws ``LMDBError/nestedTransaction``. On a store
    /// opened from a read-only filesystem it throws `EROFS` ("Read-only file system").
    public func write<R>(_ body: (borrowing Transaction) throws -> R) throws -> R {
        guard !isReadOnly else { throw LMDBError.system(errno: EROFS) }
        guard depth.value == 0 else { throw LMDBError.nestedTransaction }
        try enterForWrite()
        defer {
            transactionLock?.unlockExclusive()
            writerLock.unlock()
            gate.unlock()
        }
        depth.value = 1
        defer { depth.value = 0 }
        mapLock.lockShared()
        defer { mapLock.unlock() }
        while true {
            let txn = try begin(readOnly: false, nested: false)
            let result: R
            do {
                result = try body(Transaction(handle: txn, environment: self, isWritable: true))
            } catch LMDBError.mapFull {
                mdb_txn_abort(txn)
                try growMap()
                continue
            } catch {
                mdb_txn_abort(txn)
                throw error
            }
            // A failed commit frees the transaction: never abort after it.
            let rc = mdb_txn_commit(txn)
            if rc == MDB_MAP_FULL {
                try growMap()
                continue
            }
            try check(rc)
            return result
        }
    }

    /// Holds what a read needs (the gate shared and, in per-transaction mode, the transaction
    /// lock shared) on a handle of the data file's current generation; holds nothing if it throws.
    private func enterForRead() throws(LMDBError) {
        while true {
            try enter()
            guard let transactionLock else { return }
            do throws(LMDBError) {
                try transactionLock.lockShared()
            } catch {
                gate.unlock()
                throw error
            }
            if transactionLock.generation == openedGeneration { return }
            transactionLock.unlockShared()
            gate.unlock()
            try reopenIfReplaced()
        }
    }

    /// Holds what a write needs: the gate shared, this process's writer lock and, in
    /// per-transaction mode, the transaction lock exclusive, on a handle of the current generation.
    private func enterForWrite() throws(LMDBError) {
        while true {
            try enter()
            if handleIsReadOnly {
                gate.unlock()
                try reopenForWriting()
                continue
            }
            writerLock.lock()
            guard let transactionLock else { return }
            do throws(LMDBError) {
                try transactionLock.lockExclusive()
            } catch {
                writerLock.unlock()
                gate.unlock()
                throw error
            }
            if transactionLock.generation == openedGeneration { return }
            transactionLock.unlockExclusive()
            writerLock.unlock()
            gate.unlock()
            try reopenIfReplaced()
        }
    }

    /// Reopens a handle opened read-only until the first write for writing; if that fails, the
    /// read-only one is reopened and the error thrown.
    func reopenForWriting() throws(LMDBError) {
        gate.lockExclusive()
        defer { gate.unlock() }
        guard !isClosed else { throw LMDBError.closed(path: path) }
        guard handleIsReadOnly else { return }
        if let handle = openHandle { try shutDown(handle, suspending: true) }
        handleIsReadOnly = false
        do throws(LMDBError) {
            try reopenHoldingGate()
        } catch {
            handleIsReadOnly = true
            try? reopenHoldingGate()
            throw error
        }
    }

    /// Reopens the handle when another process replaced the data file since it was opened
    /// (per-transaction mode: the old handle maps the old file, which no longer has a name).
    private func reopenIfReplaced() throws(LMDBError) {
        gate.lockExclusive()
        defer { gate.unlock() }
        guard let transactionLock, let handle = openHandle, transactionLock.generation != openedGeneration
        else { return }
        try shutDown(handle, suspending: true)
        try reopenHoldingGate()
    }

    /// Begins a transaction, adopting a map grown by another process (`MDB_MAP_RESIZED`) and
    /// clearing stale reader slots when every slot is taken (`MDB_READERS_FULL`).
    func begin(readOnly: Bool, nested: Bool) throws(LMDBError) -> OpaquePointer {
        var attempts = 0
        while true {
            var txn: OpaquePointer?
            let rc = mdb_txn_begin(handle, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn)
            if rc == 0, let txn { return txn }
            attempts += 1
            guard attempts < 4 else { throw LMDBError(code: rc) }
            switch rc {
            case MDB_MAP_RESIZED where !nested:
                try withExclusiveMap { () throws(LMDBError) in try check(mdb_env_set_mapsize(handle, 0)) }
            case MDB_READERS_FULL:
                var dead: Int32 = 0
                try check(mdb_reader_check(handle, &dead))
                if dead == 0 { throw LMDBError.readersFull }
            default:
                throw LMDBError(code: rc)
            }
        }
    }

    /// Doubles the map, up to the configured maximum; throws `mapFull` at the maximum.
    private func growMap() throws(LMDBError) {
        let current = try infoHoldingMapLock().mapSize
        guard current < configuration.maxMapSize else { throw LMDBError.mapFull }
        let next = min(max(current, 1 << 16) * 2, configuration.maxMapSize)
        try withExclusiveMap { () throws(LMDBError) in try check(mdb_env_set_mapsize(handle, next)) }
    }

    /// Grows the map to at least `bytes` (up to the configured maximum) before a large write, so the
    /// write does not run several times while the map doubles. Wraps `mdb_env_set_mapsize`.
    public func reserveMapSize(atLeast bytes: Int) throws(LMDBError) {
        guard depth.value == 0 else { throw LMDBError.nestedTransaction }
        try enter()
        if handleIsReadOnly {
            gate.unlock()
            try reopenForWriting()
            try enter()
        }
        defer { gate.unlock() }
        writerLock.lock()
        defer { writerLock.unlock() }
        let target = min(bytes, configuration.maxMapSize)
        mapLock.lockShared()
        let current = Result { () throws(LMDBError) in try infoHoldingMapLock().mapSize }
        mapLock.unlock()
        guard try current.get() < target else { return }
        mapLock.lockExclusive()
        defer { mapLock.unlock() }
        try check(mdb_env_set_mapsize(handle, target))
    }

    /// The version of the LMDB library LMDBKit runs on, as `mdb_version` gives it
    /// (for example "LMDB 0.9.31: (July 10, 2023)"). Wraps `mdb_version`.
    public static var libraryVersion: String { String(cString: mdb_version(nil, nil, nil)) }

    /// Whether `path` is open in this process right now: for this package's tests, not API.
    package static func isOpen(path: String) -> Bool {
        guard let resolved = realpath(path, nil) else { return false }
        defer { free(resolved) }
        return registry.isOpen(String(cString: resolved))
    }

    /// Trades this thread's shared hold of the map lock for an exclusive one around `body`.
    private func withExclusiveMap(_ body: () throws(LMDBError) -> Void) throws(LMDBError) {
        mapLock.unlock()
        mapLock.lockExclusive()
        defer {
            mapLock.unlock()
            mapLock.lockShared()
        }
        try body()
    }

    // MARK: The registry of open paths

    static let registry = EnvironmentRegistry()
}
