import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The coordination of ``Locking/perTransaction`` mode: `fcntl` locks on the environment's lock
/// file, held for one transaction's life (shared for a read, exclusive for a write), and an
/// in-process read-write lock that keeps the same rule between this process's own threads.
///
/// Two bytes of the file: byte 0 is the lock itself; byte 1 is a turnstile that a writer holds
/// from before it waits for byte 0 until it is done, and that a reader passes through (takes
/// shared and lets go) before it takes byte 0, so a steady stream of readers in other processes
/// cannot keep a writer waiting forever (the kernel grants a shared lock beside a waiting writer).
///
/// `fcntl` locks belong to the process, not the thread: a second shared holder in this process
/// would not add a lock, and one thread's unlock would drop everyone's. So the first of this
/// process's readers takes byte 0 and the last one releases it, and a writer first excludes this
/// process's readers, then takes both bytes.
///
/// The file's byte 8 says whether a writer holds the turnstile: the writer sets it once it has
/// the turnstile and clears it before letting go. While it is clear a reader goes straight for
/// byte 0 (two system calls a read, and none for a reader joining others of this process); while
/// it is set, through the turnstile as above. The byte only saves calls: exclusion is byte 0's
/// alone, a reader that saw the byte clear just before a writer set it is one the writer waits
/// for once, and a writer killed with the byte set leaves readers on the turnstile path until
/// the next writer clears it.
// @unchecked: owns a descriptor and pthread locks, used only through its methods
final class TransactionLock: @unchecked Sendable {
    /// The lock file, open for as long as the environment is; it holds no lock between transactions.
    private let descriptor: Int32
    /// Whether `descriptor` was opened for writing (so it can extend the file and bump the generation).
    private let writable: Bool
    /// The address of the file's first 16 bytes mapped shared (0 until the file is 8 bytes long;
    /// writable when `writable`): bytes 0–7 the generation of the store's data file, which a
    /// replacement of `data.mdb` (``Environment/replaceFile(mapSize:_:)``) raises; byte 8 the
    /// writer's turnstile flag. Set once, under `mapping`; read on every transaction with one
    /// atomic load, no lock.
    private let mapped = Atomic<UInt>(0)
    /// Whether the file held byte 8 when it was mapped (a file an older build made holds 8
    /// bytes until a writer of this build opens it); until then every reader takes the turnstile.
    private let flagMapped = Atomic<Bool>(false)
    private let mapping = WriterLock()
    private let threads = ReadWriteLock(preferringExclusive: true)
    private let readers = WriterLock()
    /// How many of this process's read transactions hold byte 0 shared; guarded by `readers`.
    private var readerCount = 0

    private static let lockByte: off_t = 0
    private static let turnstileByte: off_t = 1

    /// Opens the lock file at `path`, creating it with `mode` if missing (even for a read-only
    /// open, as LMDB makes `lock.mdb`: it is the lock, not data). Where it cannot be written (a
    /// read-only filesystem, say) it is opened for reading, which is all a reader needs.
    init(path: [CChar], mode: UInt16) throws(LMDBError) {
        var opened = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode_t(mode))
        let openedForWriting = opened >= 0
        if opened < 0 && (errno == EROFS || errno == EACCES) {
            opened = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        }
        guard opened >= 0 else { throw LMDBError.system(errno: errno) }
        descriptor = opened
        writable = openedForWriting
        // One fstat(2) for both the extension and the map (an open is a first layout's cost).
        var status = stat()
        guard fstat(opened, &status) == 0 else { return }
        var size = status.st_size
        // Room for the generation and the flag: extending keeps any bytes already there.
        if writable, size < Self.mappedSize, ftruncate(opened, off_t(Self.mappedSize)) == 0 {
            size = off_t(Self.mappedSize)
        }
        _ = mapGeneration(size: size)
    }

    deinit {
        if let map = UnsafeMutableRawPointer(bitPattern: mapped.load(ordering: .acquiring)) {
            munmap(map, Self.mappedSize)
        }
        close(descriptor)
    }

    private static let generationSize = 8
    /// The generation, then the flag (one byte, padded).
    private static let mappedSize = 16
    private static let flagOffset = 8

    /// The mapped generation, mapped now if the file has become long enough; nil while it is not.
    /// `size`: the file's length when the caller has just read it.
    private func mapGeneration(size known: off_t? = nil) -> UnsafeRawPointer? {
        if let map = UnsafeRawPointer(bitPattern: mapped.load(ordering: .acquiring)) { return map }
        mapping.lock()
        defer { mapping.unlock() }
        if let map = UnsafeRawPointer(bitPattern: mapped.load(ordering: .acquiring)) { return map }
        var status = stat()
        if let known {
            status.st_size = known
        } else if fstat(descriptor, &status) != 0 {
            return nil
        }
        guard status.st_size >= Self.generationSize else { return nil }
        // 16 bytes of a file of 8 lie inside its one page: they read as zeros, never fault.
        let protection = writable ? PROT_READ | PROT_WRITE : PROT_READ
        let raw = mmap(nil, Self.mappedSize, protection, MAP_SHARED, descriptor, 0)
        guard let raw, raw != MAP_FAILED else { return nil }
        flagMapped.store(status.st_size >= Self.mappedSize, ordering: .relaxed)
        mapped.store(UInt(bitPattern: raw), ordering: .releasing)
        return UnsafeRawPointer(raw)
    }

    /// The generation of the store's data file: 0 until the first replacement, then raised by
    /// each (``bumpGeneration()``). Read with the lock held, it names the `data.mdb` every
    /// transaction of any process then sees; a process whose handle was opened at another
    /// generation reopens before it goes on. A lock file too short to hold one (opened
    /// read-only, and never extended by a writer) reads 0.
    var generation: UInt64 {
        guard let map = mapGeneration() else { return 0 }
        return map.loadUnaligned(as: UInt64.self)
    }

    /// Raises the generation by one; call with the exclusive side held, before the data file is
    /// replaced. Throws when the file cannot be written.
    func bumpGeneration() throws(LMDBError) {
        guard writable else { throw LMDBError.system(errno: EBADF) }
        var next = generation &+ 1
        if next == 0 { next = 1 }
        let written = withUnsafeBytes(of: &next) {
            pwrite(descriptor, $0.baseAddress, Self.generationSize, 0)
        }
        guard written == Self.generationSize else { throw LMDBError.system(errno: written < 0 ? errno : EIO) }
        guard fsync(descriptor) == 0 else { throw LMDBError.system(errno: errno) }
    }

    /// Whether a writer of some process holds the turnstile, as byte 8 says; true while the
    /// byte is not mapped, so that readers then always take the turnstile.
    private var writerAtTurnstile: Bool {
        guard let map = mapGeneration(), flagMapped.load(ordering: .relaxed) else { return true }
        return map.load(fromByteOffset: Self.flagOffset, as: UInt8.self) != 0
    }

    /// Sets or clears byte 8; a no-op where the file is not mapped writable with it.
    private func markTurnstile(_ held: Bool) {
        guard writable, flagMapped.load(ordering: .relaxed),
            let map = UnsafeMutableRawPointer(bitPattern: mapped.load(ordering: .acquiring))
        else { return }
        map.storeBytes(of: held ? 1 : 0, toByteOffset: Self.flagOffset, as: UInt8.self)
    }

    /// Holds the shared side, for a read transaction.
    ///
    /// While no writer holds the turnstile (byte 8 clear), the first of this process's readers
    /// takes byte 0 shared, and a reader joining others of this process takes nothing: two
    /// system calls a read. Otherwise the first reader takes both bytes shared in one call (it
    /// waits while a writer of any process holds the turnstile or the lock) and lets go of the
    /// turnstile at once, three calls; and a joining reader passes through the turnstile,
    /// outside `readers`, since the writer waiting there may be waiting for those others.
    func lockShared() throws(LMDBError) {
        threads.lockShared()
        var passedTurnstile = false
        while true {
            readers.lock()
            if readerCount == 0 {
                // No reader of this process holds byte 0, so no writer waits for this one.
                let direct = !writerAtTurnstile
                do throws(LMDBError) {
                    try setLock(Int16(F_RDLCK), Self.lockByte, length: direct ? 1 : 2)
                } catch {
                    readers.unlock()
                    threads.unlock()
                    throw error
                }
                readerCount = 1
                readers.unlock()
                if !direct { try? setLock(Int16(F_UNLCK), Self.turnstileByte) }
                return
            }
            if passedTurnstile || !writerAtTurnstile {
                readerCount += 1
                readers.unlock()
                return
            }
            readers.unlock()
            do throws(LMDBError) {
                try setLock(Int16(F_RDLCK), Self.turnstileByte)
            } catch {
                threads.unlock()
                throw error
            }
            try? setLock(Int16(F_UNLCK), Self.turnstileByte)
            passedTurnstile = true
        }
    }

    /// Lets go of the shared side.
    func unlockShared() {
        readers.lock()
        readerCount -= 1
        if readerCount == 0 { try? setLock(Int16(F_UNLCK), Self.lockByte) }
        readers.unlock()
        threads.unlock()
    }

    /// Holds the exclusive side, for a write transaction.
    func lockExclusive() throws(LMDBError) {
        threads.lockExclusive()
        var holdsTurnstile = false
        do throws(LMDBError) {
            try setLock(Int16(F_WRLCK), Self.turnstileByte)
            holdsTurnstile = true
            // Readers arriving from now on take the turnstile, and wait there.
            markTurnstile(true)
            try setLock(Int16(F_WRLCK), Self.lockByte)
        } catch {
            if holdsTurnstile { markTurnstile(false) }
            try? setLock(Int16(F_UNLCK), Self.lockByte, length: 2)
            threads.unlock()
            throw error
        }
    }

    /// Lets go of the exclusive side.
    func unlockExclusive() {
        // Cleared while the turnstile is still held, so it never clears the next writer's mark.
        markTurnstile(false)
        try? setLock(Int16(F_UNLCK), Self.lockByte, length: 2)
        threads.unlock()
    }

    /// `fcntl(F_SETLKW)` on `length` bytes from `start`, retried when a signal interrupts the
    /// wait, and after a millisecond when the kernel reports a deadlock: its detection counts
    /// processes, not threads, so a reader that waits at the turnstile while a writer waits for
    /// this process's other readers looks like one, though those readers finish on their own.
    private func setLock(_ type: Int16, _ start: off_t, length: off_t = 1) throws(LMDBError) {
        var request = flock()
        request.l_type = type
        request.l_whence = Int16(SEEK_SET)
        request.l_start = start
        request.l_len = length
        while fcntl(descriptor, F_SETLKW, &request) != 0 {
            switch errno {
            case EINTR: continue
            case EDEADLK: usleep(1_000)
            default: throw LMDBError.system(errno: errno)
            }
        }
    }

    /// The id of a process that holds LMDB's lifetime lock on `lockFile` (`lock.mdb`, byte 0,
    /// which every process with the environment open in ``Locking/lmdb`` mode holds), or nil.
    static func lmdbModeHolder(of lockFile: [CChar]) -> Int32? {
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
