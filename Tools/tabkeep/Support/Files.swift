import Foundation

/// Writing whole files safely: a temporary file beside the target, created exclusively with mode
/// 0600 under a random name (never through a link planted there), then renamed into place.
final class PrivateFileWriter {
    let path: String
    private let temporaryPath: String
    private let descriptor: Int32
    private var done = false

    /// Creates a temporary sibling of `path` with `O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600.
    init(path: String) throws {
        self.path = path
        (temporaryPath, descriptor) = try Self.createTemporary(beside: path)
    }

    /// A new file `.NAME.tmp-RANDOM` in `path`'s directory; a name that exists (a file or a link)
    /// is never opened, another random name is tried instead.
    private static func createTemporary(beside path: String) throws -> (String, Int32) {
        let target = URL(fileURLWithPath: path)
        let directory = target.deletingLastPathComponent().path
        for _ in 0..<16 {
            let random = String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let candidate = directory + "/." + target.lastPathComponent + ".tmp-" + random
            let descriptor = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if descriptor >= 0 { return (candidate, descriptor) }
            guard errno == EEXIST else { break }
        }
        throw ToolError(message: "cannot create \(path): \(String(cString: strerror(errno)))")
    }

    func write(_ bytes: [UInt8]) throws {
        try FileDescriptorOutput.writeAll(descriptor, bytes, name: path)
    }

    /// Flushes to disk and renames into place.
    func commit() throws {
        guard fsync(descriptor) == 0, close(descriptor) == 0 else {
            throw ToolError(message: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        done = true
        guard rename(temporaryPath, path) == 0 else {
            unlink(temporaryPath)
            throw ToolError(message: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        if !done {
            close(descriptor)
            unlink(temporaryPath)
        }
    }
}

/// Raw writes to a file descriptor (stdout for data, without Foundation buffering in between).
enum FileDescriptorOutput {
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], name: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                write(descriptor, $0.baseAddress! + offset, bytes.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw ToolError(message: "cannot write \(name): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }
}
