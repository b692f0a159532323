import Foundation
import TabKeepS3

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The s3 workload's own SeaweedFS (`weed server -s3`) on free loopback ports, with one identity
/// so SigV4 is enforced. A shell runs it and stops it (SIGTERM, then SIGKILL after 5 s) and
/// removes its data directory when told to (`stop()`), or by itself once the bench is gone.
final class SeaweedServer {
    static let accessKey = "TABKEEPBENCHKEY"
    static let secret = "tabkeep-bench-secret-51c7e2"
    /// The bucket every s3 phase uses, made by the warm-up write (the admin identity's upload
    /// creates it).
    static let bucket = "tabkeep-bench"

    let endpoint: URL
    let directory: String
    private let process: Process
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
        process = Process()
        try FileManager.default.createDirectory(
            atPath: directory + "/data", withIntermediateDirectories: true)
        let ports: [Int]
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
            // SIGTERM to the shell (or the bench gone) stops weed and removes the data directory.
            let script = """
                \(quoted) >'\(directory)/weed.log' 2>&1 </dev/null & pid=$!
                echo $pid >'\(directory)/weed.pid'
                stop() {
                    trap '' TERM INT
                    kill $pid 2>/dev/null; n=0
                    while kill -0 $pid 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
                    kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf '\(directory)'; exit 0
                }
                trap stop TERM INT
                while kill -0 \(getpid()) 2>/dev/null && kill -0 $pid 2>/dev/null; do sleep 1 & wait $!; done
                stop
                """
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script]
            // Not the bench's stdout or stderr: whoever reads them would wait for the server too.
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        endpoint = URL(string: "http://127.0.0.1:\(ports[6])")!
        for _ in 0..<240 {
            if loopbackAccepts(port: ports[6]) {
                usleep(500_000)  // the S3 gateway accepts a moment before its filer is connected
                return
            }
            if !process.isRunning { break }
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

    /// Stops the server (SIGTERM, SIGKILL after 5 s) and removes its data directory; idempotent.
    func stop() {
        guard !stopped else { return }
        stopped = true
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            // The shell's own stop takes at most 5 s; give it 8 before doing its work here.
            let deadline = nanoseconds() + 8_000_000_000
            while process.isRunning && nanoseconds() < deadline { usleep(50_000) }
        }
        if process.isRunning {
            if let text = try? String(contentsOfFile: directory + "/weed.pid", encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                kill(pid, SIGKILL)
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}

struct BenchS3Error: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
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
