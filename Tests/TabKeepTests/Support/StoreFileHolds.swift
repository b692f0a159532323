import Foundation
import LMDBKit

#if canImport(Glibc)
    import Glibc
#endif

/// What this process holds on a store's `data.mdb` and `lock.mdb` right now, read from
/// `/proc/self/fdinfo` and `/proc/locks` (matched by inode and this process's pid) and
/// `/proc/self/fd` (by path).
/// Linux only: elsewhere there is no `/proc`.
struct StoreFileHolds: Equatable, CustomStringConvertible {
    /// The `/proc/locks` lines of this process on `lock.mdb`.
    var lockFileLocks: [String] = []
    /// The `/proc/locks` lines of this process on `data.mdb`.
    var dataFileLocks: [String] = []
    /// How many descriptors of this process point at `data.mdb` or `lock.mdb`.
    var descriptors = 0

    static let none = StoreFileHolds()

    var description: String {
        "\(descriptors) descriptors; locks on lock.mdb: \(lockFileLocks); on data.mdb: \(dataFileLocks)"
    }

    /// The holds of this process on the store in `directory`.
    init(of directory: String) throws {
        guard let resolved = realpath(directory, nil) else { throw POSIXError(.ENOENT) }
        let canonical = String(cString: resolved)
        free(resolved)
        // A per-transaction store has no lock.mdb: its lock file is LMDBKit's own.
        let lockFile =
            FileManager.default.fileExists(atPath: canonical + "/lock.mdb")
            ? canonical + "/lock.mdb" : canonical + "/" + Environment.transactionLockFileName
        let dataFile = canonical + "/data.mdb"
        let pid = String(getpid())
        let lockInode = Self.inode(lockFile)
        let dataInode = Self.inode(dataFile)
        // This process's locks on each file it has open, from /proc/self/fdinfo: a POSIX lock
        // lives only while the process has a descriptor on the file, and fdinfo lists exactly
        // the locks of the descriptor's owner on that file. /proc/locks alone is not enough: the
        // kernel writes it a page at a time and drops a row when rows before it go away between
        // two pages, and every process's locks are in that one list (other tests and their child
        // processes lock and unlock all the time), so under load a held lock could go unseen.
        var rows: [Substring] = []
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            guard
                let target = try? FileManager.default.destinationOfSymbolicLink(
                    atPath: "/proc/self/fd/" + entry)
            else { continue }
            guard target == lockFile || target == dataFile else { continue }
            descriptors += 1
            let info = (try? String(contentsOfFile: "/proc/self/fdinfo/" + entry, encoding: .utf8)) ?? ""
            for line in info.split(separator: "\n") where line.hasPrefix("lock:") {
                let row = line.drop { $0 != ":" }.dropFirst().drop { $0 != ":" }.dropFirst()
                if !rows.contains(row) { rows.append(row) }
            }
        }
        // And /proc/locks (three reads), rows without the ordinal: a second witness.
        for _ in 0..<3 {
            for line in try String(contentsOfFile: "/proc/locks", encoding: .utf8).split(separator: "\n") {
                let row = line.drop { $0 != ":" }.dropFirst()
                if !rows.contains(row) { rows.append(row) }
            }
        }
        for line in rows {
            // " POSIX  ADVISORY  WRITE 1234 08:01:5678 0 0", or " -> POSIX …" for a waiter.
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).filter { $0 != "->" }
            guard fields.count >= 5, fields[3] == pid else { continue }
            let inode = fields[4].split(separator: ":").last.flatMap { UInt64($0) }
            if inode != nil, inode == lockInode, !lockFileLocks.contains(String(line)) {
                lockFileLocks.append(String(line))
            }
            if inode != nil, inode == dataInode, !dataFileLocks.contains(String(line)) {
                dataFileLocks.append(String(line))
            }
        }
    }

    init() {}

    /// Whether this process holds a lock on `lock.mdb` and a descriptor on the store: an open environment.
    var showsAnOpenEnvironment: Bool { !lockFileLocks.isEmpty && descriptors > 0 }

    private static func inode(_ path: String) -> UInt64? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return UInt64(status.st_ino)
    }
}
