#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The paths of an environment's directory and its files, each built once, as the C strings the
/// system calls of an open take.
///
/// A Swift string passed where C wants a `const char *` is copied into a new buffer at every call:
/// an open used to build 13 paths and make 17 such copies (about 10,000 instructions of a first
/// layout's 65,000, by callgrind). An array of `CChar` is passed as it is.
package struct StoreFiles {
    /// The directory, as the caller named it (``Environment/open(path:configuration:)`` passes the
    /// canonical path).
    package let directory: String
    /// The directory, NUL-terminated.
    package let directoryPath: [CChar]
    /// `data.mdb`.
    package let data: [CChar]
    /// LMDB's `lock.mdb`, made by every open in ``Locking/lmdb`` mode.
    package let lock: [CChar]
    /// ``Environment/transactionLockFileName``, the lock file of ``Locking/perTransaction`` mode.
    package let transactionLock: [CChar]

    /// The name of ``transactionLock`` (``Environment/transactionLockFileName`` is made from it).
    static let transactionLockName: StaticString = "transactions.lock"

    /// The paths of the files in `directory`.
    package init(_ directory: String) {
        self.directory = directory
        var base = Array(directory.utf8)
        directoryPath = Self.terminated(base, "")
        base.append(UInt8(ascii: "/"))
        data = Self.terminated(base, "data.mdb")
        lock = Self.terminated(base, "lock.mdb")
        transactionLock = Self.terminated(base, Self.transactionLockName)
    }

    /// `prefix` followed by `name`'s bytes and a NUL. Reserved and appended: a byte-by-byte loop
    /// cost 2,000 instructions a path, `init(unsafeUninitializedCapacity:)` 400 for its allocation
    /// alone (the standard library's unspecialized entry point and a metadata lookup).
    private static func terminated(_ prefix: [UInt8], _ name: StaticString) -> [CChar] {
        let nameCount = name.utf8CodeUnitCount
        var path: [CChar] = []
        path.reserveCapacity(prefix.count + nameCount + 1)
        prefix.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { path.append(contentsOf: $0) }
        }
        UnsafeBufferPointer(start: name.utf8Start, count: nameCount).withMemoryRebound(to: CChar.self) {
            path.append(contentsOf: $0)
        }
        path.append(0)
        return path
    }

    /// Whether `file` exists (links followed): `access(F_OK)`.
    package static func exists(_ file: [CChar]) -> Bool { access(file, F_OK) == 0 }
}
