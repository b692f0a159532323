import Foundation

/// Writing whole files safely: a temporary file beside the target, mode 0600, renamed into place.
final class PrivateFileWriter {
    let path: String
    private let temporaryPath: String
    private let descriptor: Int32
    private var done = false

    /// Creates `path`'s temporary sibling with mode 0600.
    init(path: String) throws {
        self.path = path
        temporaryPath = path + ".tmp-\(getpid())"
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ToolError(message: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        fchmod(descriptor, 0o600)
        self.descriptor = descriptor
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
