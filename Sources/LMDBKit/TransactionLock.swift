#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The coordination of ``Locking/perTransaction`` mode: one `fcntl` lock on the environment's
/// lock file, held for one transaction's life (shared for a read, exclusive for a write), and an
/// in-process read-write lock that keeps the same rule between this process's own threads.
///
/// `fcntl` locks belong to the process, not the thread: a second shared holder in this process
/// would not add a lock, and one thread's unlock would drop everyone's. So the first of this
/// process's readers takes the shared `fcntl` lock and the last one releases it, and a writer
/// first excludes this process's readers, then takes the exclusive `fcntl` lock.
// @unchecked: owns a descriptor and pthread locks, used only through its methods
final class TransactionLock: @unchecked Sendable {
    /// The lock file, open for as long as the environment is; it holds no lock between transactions.
    private let descriptor: Int32
    private let threads = ReadWriteLock(preferringExclusive: true)
    private let readers = WriterLock()
    /// How many of this process's read transactions hold the shared lock; guarded by `readers`.
    private var readerCount = 0

    /// Opens (creating it with `mode` when `create`) the lock file at `path`.
    init(path: String, create: Bool, mode: UInt16) throws(LMDBError) {
        let flags = create ? O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW : O_RDONLY | O_CLOEXEC | O_NOFOLLOW
        let opened = open(path, flags, mode_t(mode))
        guard opened >= 0 else { throw LMDBError.system(errno: errno) }
        descriptor = opened
    }

    deinit { close(descriptor) }

    /// Holds the shared side, for a read transaction.
    func lockShared() throws(LMDBError) {
        threads.lockShared()
        readers.lock()
        defer { readers.unlock() }
        if readerCount == 0 {
            do throws(LMDBError) {
                try setLock(Int16(F_RDLCK))
            } catch {
                threads.unlock()
                throw error
            }
        }
        readerCount += 1
    }

    /// Lets go of the shared side.
    func unlockShared() {
        readers.lock()
        readerCount -= 1
        if readerCount == 0 { try? setLock(Int16(F_UNLCK)) }
        readers.unlock()
        threads.unlock()
    }

    /// Holds the exclusive side, for a write transaction.
    func lockExclusive() throws(LMDBError) {
        threads.lockExclusive()
        do throws(LMDBError) {
            try setLock(Int16(F_WRLCK))
        } catch {
            threads.unlock()
            throw error
        }
    }

    /// Lets go of the exclusive side.
    func unlockExclusive() {
        try? setLock(Int16(F_UNLCK))
        threads.unlock()
    }

    /// `fcntl(F_SETLKW)` over the whole file, retried when a signal interrupts the wait.
    private func setLock(_ type: Int16) throws(LMDBError) {
        var request = flock()
        request.l_type = type
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 0
        while fcntl(descriptor, F_SETLKW, &request) != 0 {
            guard errno == EINTR else { throw LMDBError.system(errno: errno) }
        }
    }

    /// The id of a process that holds LMDB's lifetime lock on `lockFile` (`lock.mdb`, byte 0,
    /// which every process with the environment open in ``Locking/lmdb`` mode holds), or nil.
    static func lmdbModeHolder(of lockFile: String) -> Int32? {
        let file = open(lockFile, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = 0
        probe.l_len = 1
        guard fcntl(file, F_GETLK, &probe) == 0, probe.l_type != Int16(F_UNLCK) else { return nil }
        return Int32(probe.l_pid)
    }
}
