#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few POSIX calls the folder transport needs, each failing with the path and `strerror`.
///
/// POSIX rather than Foundation so that reads refuse symlinks (`O_NOFOLLOW`, `lstat`) and
/// writes are fsynced before the rename.
enum FolderFiles {
    /// The kind of a directory entry, without following a symlink.
    enum Kind {
        case regular(size: Int)
        case symlink
        case directory
        case other
        case missing
    }

    static func kind(_ path: String) throws(SyncError) -> Kind {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return .missing }
            throw failure(path, "cannot inspect it")
        }
        return kind(of: info)
    }

    private static func kind(of info: stat) -> Kind {
        switch info.st_mode & S_IFMT {
        case S_IFREG: .regular(size: Int(info.st_size))
        case S_IFLNK: .symlink
        case S_IFDIR: .directory
        default: .other
        }
    }

    /// The names in a directory (no "." or ".."), sorted.
    static func names(in directory: String) throws(SyncError) -> [String] {
        guard let handle = opendir(directory) else { throw failure(directory, "cannot list it") }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The bytes of a regular file, never through a symlink, at most `limit` bytes.
    static func contents(of path: String, limit: Int) throws(SyncError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path, "cannot open it") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(path, "cannot inspect it") }
        guard case .regular(let size) = kind(of: info) else {
            throw .file(path: path, reason: "not a regular file")
        }
        guard size <= limit else {
            throw .file(path: path, reason: "\(size) bytes is more than the limit of \(limit) bytes")
        }
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path, "cannot read it")
            }
            if count == 0 { break }
            filled += count
        }
        guard filled <= size else { throw .file(path: path, reason: "it grew while being read") }
        return Array(bytes[0..<filled])
    }

    /// Replaces `directory/name` with `bytes`: a temporary file in the same directory, written,
    /// fsynced and renamed over the name (mode 0600), then the directory fsynced.
    static func replace(_ name: String, in directory: String, with bytes: [UInt8]) throws(SyncError) {
        let temporary =
            directory + "/." + name + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(temporary, "cannot create it") }
        var written = 0
        var failed: SyncError?
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                failed = failure(temporary, "cannot write it")
                break
            }
            written += count
        }
        if failed == nil && fsync(descriptor) != 0 { failed = failure(temporary, "cannot fsync it") }
        close(descriptor)
        if failed == nil && rename(temporary, directory + "/" + name) != 0 {
            failed = failure(directory + "/" + name, "cannot rename the temporary file to it")
        }
        if let failed {
            unlink(temporary)
            throw failed
        }
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            // The rename is durable once the directory is; some filesystems refuse, harmlessly.
            _ = fsync(folder)
            close(folder)
        }
    }

    private static func failure(_ path: String, _ what: String) -> SyncError {
        .file(path: path, reason: "\(what): \(String(cString: strerror(errno)))")
    }
}
