import Foundation
import TabKeepS3

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The s3 workload's own SeaweedFS (`weed server -s3`) on free loopback ports, with one identity
/// so SigV4 is enforced. `stop()` stops weed (SIGTERM, then SIGKILL after 3 s); the shell that
/// runs it then removes its data directory, and stops weed the same way by itself once the bench
/// is gone.
final class SeaweedServer {
    static let accessKey = "TABKEEPBENCHKEY"
    static let secret = "tabkeep-bench-secret-51c7e2"
    /// The bucket every s3 phase uses, made by the warm-up write (the admin identity's upload
    /// creates it).
    static let bucket = "tabkeep-bench"

    let endpoint: URL
    let directory: String
    /// The shell running weed, spawned by `spawnShell`.
    private let shell: pid_t
    private var shellExited = false
    private var stopped = false

    /// `weed` on PATH, or nil.
    static func executable() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = String(folder) + "/weed"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Starts `weed` with its data in `directory` (made here, removed by `stop()`); returns once
    /// the S3 port accepts connections (bounded to 60 s). Call `waitUntilWritable()` next.
    init(weed: String, directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(
            atPath: directory + "/data", withIntermediateDirectories: true)
        let ports: [Int]
        let shell: pid_t
        do {
            let config = """
                {"identities":[{"name":"bench","credentials":[{"accessKey":"\(Self.accessKey)",\
                "secretKey":"\(Self.secret)"}],"actions":["Admin","Read","Write","List","Tagging"]}]}
                """
            try Data(config.utf8).write(to: URL(fileURLWithPath: directory + "/s3.json"))
            ports = try freeLoopbackPorts(8)
            let arguments = [
                weed, "server", "-dir=\(directory)/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                "-master.port=\(ports[0])", "-master.port.grpc=\(ports[1])", "-volume.port=\(ports[2])",
                "-volume.port.grpc=\(ports[3])", "-filer.port=\(ports[4])", "-filer.port.grpc=\(ports[5])",
                "-s3",
                "-s3.port=\(ports[6])", "-s3.port.grpc=\(ports[7])", "-s3.config=\(directory)/s3.json",
                "-master.volumeSizeLimitMB=64", "-volume.max=0", "-master.telemetry=false",
                "-volume.preStopSeconds=0", "-s3.port.iceberg=0", "-s3.port.lance=0",
            ]
            let quoted = arguments.map { "'" + $0 + "'" }.joined(separator: " ")
            // The shell waits for weed, then removes the data directory; its watcher stops weed
            // (SIGTERM, SIGKILL after 3 s) if the bench is gone.
            let script = """
                \(quoted) >'\(directory)/weed.log' 2>&1 </dev/null & pid=$!
                echo $pid >'\(directory)/weed.pid'
                (while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; kill $pid; sleep 3; kill -9 $pid) \
                    >/dev/null 2>&1 </dev/null & watcher=$!
                wait $pid; kill -9 $watcher 2>/dev/null; rm -rf '\(directory)'
                """
            shell = try spawnShell(script)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        self.shell = shell
        endpoint = URL(string: "http://127.0.0.1:\(ports[6])")!
        for _ in 0..<240 {
            if loopbackAccepts(port: ports[6]) {
                usleep(500_000)  // the S3 gateway accepts a moment before its filer is connected
                return
            }
            if !shellRunning() { break }
            usleep(250_000)
        }
        let log = (try? String(contentsOfFile: directory + "/weed.log", encoding: .utf8)) ?? ""
        stop()
        throw BenchS3Error("SeaweedFS did not start; its log ended: \(log.suffix(400))")
    }

    /// A client signed with the server's identity.
    func client() throws -> S3Client {
        try S3Client(
            configuration: .init(endpoint: endpoint, region: "us-east-1", timeout: .seconds(20), retries: 2),
            credentials: StaticCredentialProvider(
                S3Credentials(accessKeyID: Self.accessKey, secretAccessKey: Self.secret)))
    }

    /// Waits (bounded to about 30 s) until an object can be written to `bucket`, which creates it:
    /// a fresh server answers before its master is elected, and writes wait for that.
    func waitUntilWritable() async throws {
        let probe = try S3Client(
            configuration: .init(endpoint: endpoint, region: "us-east-1", timeout: .seconds(5), retries: 0),
            credentials: StaticCredentialProvider(
                S3Credentials(accessKeyID: Self.accessKey, secretAccessKey: Self.secret)))
        var last: (any Error)?
        for _ in 0..<60 {
            do {
                _ = try await probe.putObject(bucket: Self.bucket, key: "warm-up", bytes: [1])
                return
            } catch {
                last = error
                try await Task.sleep(for: .milliseconds(500))
            }
        }
        throw BenchS3Error("SeaweedFS takes no writes: \(String(describing: last))")
    }

    /// Stops the server (SIGTERM, SIGKILL after 3 s) and removes its data directory; idempotent.
    func stop() {
        guard !stopped else { return }
        stopped = true
        var text: String?
        for _ in 0..<50 where shellRunning() {
            text = try? String(contentsOfFile: directory + "/weed.pid", encoding: .utf8)
            if text?.hasSuffix("\n") == true { break }
            usleep(20_000)
        }
        if let pid = text.flatMap({ Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }), pid > 0 {
            kill(pid, SIGTERM)
            let deadline = nanoseconds() + 3_000_000_000
            while Self.alive(pid) && nanoseconds() < deadline { usleep(20_000) }
            if Self.alive(pid) { kill(pid, SIGKILL) }
        }
        // The shell, waiting for weed, removes the data and exits.
        let deadline = nanoseconds() + 3_000_000_000
        while shellRunning() && nanoseconds() < deadline { usleep(20_000) }
        if shellRunning() {
            kill(shell, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(shell, &status, 0)
            shellExited = true
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Whether the shell still runs; reaps it once it has exited.
    private func shellRunning() -> Bool {
        guard !shellExited else { return false }
        var status: Int32 = 0
        if waitpid(shell, &status, WNOHANG) == 0 { return true }
        shellExited = true
        return false
    }

    /// Whether `pid` runs (a zombie, exited but not yet reaped by the shell, does not).
    private static func alive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return !stat[close...].hasPrefix(") Z")
    }

    deinit { stop() }
}

struct BenchS3Error: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs `/bin/sh -c script` with stdin, stdout and stderr on /dev/null (whoever reads the bench's
/// output would wait for the server too), no signal blocked and every signal at its default:
/// Foundation's `Process` passes on the spawning thread's mask, with SIGTERM and SIGCHLD blocked,
/// and a shell with SIGCHLD blocked never returns from `wait`.
private func spawnShell(_ script: String) throws -> pid_t {
    #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
    #else
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for descriptor: Int32 in 0...2 {
        posix_spawn_file_actions_addopen(
            &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let words: [String] = ["/bin/sh", "-c", script]
    let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    defer { arguments.forEach { free($0) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, arguments, environ)
    guard result == 0 else { throw BenchS3Error("cannot run /bin/sh: errno \(result)") }
    return pid
}

/// `count` distinct loopback ports free at the moment of asking.
private func freeLoopbackPorts(_ count: Int) throws -> [Int] {
    var sockets: [Int32] = []
    defer { sockets.forEach { close($0) } }
    var ports: [Int] = []
    for _ in 0..<count {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw BenchS3Error("socket failed: errno \(errno)") }
        sockets.append(descriptor)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw BenchS3Error("cannot bind a loopback port: errno \(errno)") }
        ports.append(Int(UInt16(bigEndian: address.sin_port)))
    }
    return ports
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
private func loopbackAccepts(port: Int) -> Bool {
    #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}
