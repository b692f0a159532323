#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pthread mutex that is locked and unlocked across scopes (the writer lock of an environment).
/// A pthread call that fails (EDEADLK, EINVAL: a programming error) stops the process, never
/// passes silently; the same holds for the other locks here.
// @unchecked: owns a pthread mutex, used only through lock/unlock
final class WriterLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() { precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed") }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { precondition(pthread_mutex_lock(mutex) == 0, "pthread_mutex_lock failed") }
    func unlock() { precondition(pthread_mutex_unlock(mutex) == 0, "pthread_mutex_unlock failed") }
}

/// A pthread read-write lock, optionally preferring the exclusive side where the platform lets us
/// choose (glibc).
// @unchecked: owns a pthread rwlock, used only through its methods
class ReadWriteLock: @unchecked Sendable {
    private let rwlock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)

    init(preferringExclusive: Bool) {
        #if canImport(Glibc)
            if preferringExclusive {
                var attributes = pthread_rwlockattr_t()
                precondition(pthread_rwlockattr_init(&attributes) == 0, "pthread_rwlockattr_init failed")
                pthread_rwlockattr_setkind_np(
                    &attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
                precondition(pthread_rwlock_init(rwlock, &attributes) == 0, "pthread_rwlock_init failed")
                pthread_rwlockattr_destroy(&attributes)
                return
            }
        #endif
        precondition(pthread_rwlock_init(rwlock, nil) == 0, "pthread_rwlock_init failed")
    }

    deinit {
        pthread_rwlock_destroy(rwlock)
        rwlock.deallocate()
    }

    func lockShared() { precondition(pthread_rwlock_rdlock(rwlock) == 0, "pthread_rwlock_rdlock failed") }
    func lockExclusive() { precondition(pthread_rwlock_wrlock(rwlock) == 0, "pthread_rwlock_wrlock failed") }
    func unlock() { precondition(pthread_rwlock_unlock(rwlock) == 0, "pthread_rwlock_unlock failed") }
}

/// Every transaction holds it shared; a map resize holds it exclusive, because
/// `mdb_env_set_mapsize` may only run while no transaction of this process is active.
final class MapLock: ReadWriteLock, @unchecked Sendable {
    init() { super.init(preferringExclusive: false) }
}

/// Per-thread transaction depth for one environment, so that a write started inside another
/// transaction on the same thread fails loudly instead of deadlocking.
// @unchecked: a pthread key, itself thread-safe
final class ThreadDepth: @unchecked Sendable {
    /// A constant, so reading it takes no exclusivity check (a read reads it three times).
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        self.key = key
    }
    deinit { pthread_key_delete(key) }

    /// Bit 0: a write is open on this thread; the rest: the number of open reads.
    var value: Int {
        get { Int(bitPattern: pthread_getspecific(key)) }
        set {
            precondition(
                pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) == 0,
                "pthread_setspecific failed")
        }
    }
}

/// The read-write lock that keeps an environment open: every call that reaches LMDB holds it
/// shared, ``Environment/suspend()`` and ``Environment/close()`` exclusive. It prefers the
/// exclusive side where the platform lets us choose (glibc), so a steady stream of reads cannot
/// keep a suspend waiting; no thread ever takes it twice, so that preference cannot deadlock.
final class OpenGate: ReadWriteLock, @unchecked Sendable {
    init() { super.init(preferringExclusive: true) }
}
