#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The environments open in this process, by canonical path: at most one `MDB_env` per path at
/// any instant, because closing a second handle of a path drops the first one's POSIX locks.
///
/// A path is absent (never opened, or fully closed: it may be opened again), `open`, `closing`,
/// or `suspended`. An environment whose last reference went away is closing from that instant (its
/// weak reference reads nil) until `mdb_env_close` has returned; `open` waits while a path is
/// closing and opens it afresh afterwards, never beside it. An explicit close or suspend goes
/// through the same `closing` state; a suspend then leaves the path `suspended`: its environment
/// object lives on without an `MDB_env`, `open` hands that object back, and only it reopens the
/// path, so there is never a second handle.
// @unchecked: the slots are read and written only with the pthread mutex held
final class EnvironmentRegistry: @unchecked Sendable {
    /// A canonical path as the registry holds it, hashed once: hashing a path of some 50 bytes
    /// takes about 600 instructions, and an open and its close look the path up four times
    /// (callgrind, `first-layout`).
    struct Key: Hashable {
        /// The canonical path.
        let path: String
        private let hash: Int

        init(_ path: String) {
            self.path = path
            hash = path.hashValue
        }

        static func == (lhs: Key, rhs: Key) -> Bool { lhs.hash == rhs.hash && lhs.path == rhs.path }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    private enum Slot {
        /// Open; the reference reads nil once the last strong reference is gone (closing begins).
        case open(WeakEnvironment, handle: UInt)
        /// `mdb_env_close` of this handle is under way.
        case closing(handle: UInt)
        /// Suspended: this environment object has no `MDB_env` until it reopens the path.
        case suspended(WeakEnvironment, id: ObjectIdentifier)
    }

    /// A path's slot (nil: absent), how many `MDB_env` handles are open there, and the most ever
    /// open at once (for tests). One record per path, so a step hashes the path once.
    private struct Entry {
        var slot: Slot?
        var live = 0
        var peak = 0

        mutating func opened(_ slot: Slot) {
            self.slot = slot
            live += 1
            peak = max(peak, live)
        }
    }

    private var entries: [Key: Entry] = [:]
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let closed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        precondition(pthread_cond_init(closed, nil) == 0, "pthread_cond_init failed")
    }

    /// Runs `body` on `path`'s entry in place (one lookup of the path), creating it if missing.
    private func update(_ path: Key, _ body: (inout Entry) -> Void) {
        body(&entries[path, default: Entry()])
    }

    private func lock() { precondition(pthread_mutex_lock(mutex) == 0, "pthread_mutex_lock failed") }
    private func unlock() { precondition(pthread_mutex_unlock(mutex) == 0, "pthread_mutex_unlock failed") }

    /// The live environment at `path`, checked by `reuse`, or a new one from `make`, registered.
    /// Waits while the path is closing. Neither closure may open or release an environment.
    func open(
        _ path: Key, reuse: (Environment) throws(LMDBError) -> Void,
        make: () throws(LMDBError) -> Environment
    ) throws(LMDBError) -> Environment {
        // A found environment is released only after unlock(), so its deinit never runs under the lock.
        var found: Environment?
        let result: Result<Environment, LMDBError>
        lock()
        while true {
            switch entries[path]?.slot {
            case .open(let weak, _), .suspended(let weak, _):
                found = weak.environment
                guard let existing = found else {
                    precondition(pthread_cond_wait(closed, mutex) == 0, "pthread_cond_wait failed")
                    continue
                }
                do throws(LMDBError) {
                    try reuse(existing)
                    result = .success(existing)
                } catch {
                    result = .failure(error)
                }
            case .closing:
                precondition(pthread_cond_wait(closed, mutex) == 0, "pthread_cond_wait failed")
                continue
            case nil:
                do throws(LMDBError) {
                    let env = try make()
                    update(path) {
                        $0.opened(.open(WeakEnvironment(env), handle: UInt(bitPattern: env.handle)))
                    }
                    result = .success(env)
                } catch {
                    result = .failure(error)
                }
            }
            break
        }
        unlock()
        return try withExtendedLifetime(found) { () throws(LMDBError) in try result.get() }
    }

    /// Marks `path` closing while `close` closes `handle`, then frees the path (or, when
    /// `suspending` is given, leaves it suspended by that environment) and wakes waiters.
    func closing(_ path: Key, handle: OpaquePointer, suspending: Environment? = nil, _ close: () -> Void) {
        let key = UInt(bitPattern: handle)
        lock()
        update(path) { entry in
            if case .open(_, let registered) = entry.slot, registered == key {
                entry.slot = .closing(handle: key)
            }
        }
        unlock()
        close()
        lock()
        update(path) { entry in
            if case .closing(let registered) = entry.slot, registered == key {
                entry.slot = suspending.map { .suspended(WeakEnvironment($0), id: ObjectIdentifier($0)) }
            }
            entry.live -= 1
        }
        precondition(pthread_cond_broadcast(closed) == 0, "pthread_cond_broadcast failed")
        unlock()
    }

    /// Reopens `path` for `environment`, which suspended it: `make` opens the handle, registered
    /// open. Throws ``LMDBError/closed(path:)`` unless the path is suspended by that environment.
    func reopen(
        _ path: Key, _ environment: Environment, make: () throws(LMDBError) -> OpaquePointer
    ) throws(LMDBError) -> OpaquePointer {
        lock()
        defer { unlock() }
        guard case .suspended(_, let id) = entries[path]?.slot, id == ObjectIdentifier(environment) else {
            throw LMDBError.closed(path: path.path)
        }
        let handle = try make()
        update(path) { $0.opened(.open(WeakEnvironment(environment), handle: UInt(bitPattern: handle))) }
        return handle
    }

    /// Frees `path` if the environment `id` holds it suspended (it was closed for good or went
    /// away), and wakes waiters.
    func forget(_ path: Key, _ id: ObjectIdentifier) {
        lock()
        if case .suspended(_, let registered) = entries[path]?.slot, registered == id {
            entries[path]?.slot = nil
        }
        precondition(pthread_cond_broadcast(closed) == 0, "pthread_cond_broadcast failed")
        unlock()
    }

    /// Whether `path` has a live environment right now.
    func isOpen(_ path: String) -> Bool {
        var found: Environment?
        lock()
        if case .open(let weak, _) = entries[Key(path)]?.slot { found = weak.environment }
        unlock()
        return withExtendedLifetime(found) { found != nil }
    }

    /// The handles open at `path` now, and the most ever open at once: for tests.
    func census(of path: String) -> (live: Int, peak: Int)? {
        lock()
        defer { unlock() }
        return entries[Key(path)].map { ($0.live, $0.peak) }
    }
}

/// A weak reference to an open environment, so the registry does not keep it alive.
// @unchecked: the weak reference is read only under the registry's lock
private final class WeakEnvironment: @unchecked Sendable {
    weak var environment: Environment?
    init(_ environment: Environment) { self.environment = environment }
}
