import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for hostile answers: each request (one a connection) gets
/// whatever `answer` returns for its method and path. Requests are counted by method.
final class FakeHTTPServer: Sendable {
    struct Answer: Sendable {
        var status: Int
        var headers: [String: String] = [:]
        var body: [UInt8] = []
    }

    let port: Int
    private let listener: Int32
    private let answer: @Sendable (_ method: String, _ target: String) -> Answer
    private let counts = Mutex<[String: Int]>([:])

    var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }

    init(answer: @escaping @Sendable (_ method: String, _ target: String) -> Answer) throws {
        (listener, port) = try listeningSocket()
        self.answer = answer
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// Requests seen with `method`.
    func count(_ method: String) -> Int { counts.withLock { $0[method, default: 0] } }

    /// Stops accepting; the serving thread ends.
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            handle(connection)
            close(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        // Headers, then as much body as Content-Length says (bounded).
        while request.count < 1 << 20 {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            request += buffer[0..<count]
            if let end = headerEnd(request) {
                let head = String(decoding: request[0..<end], as: UTF8.self).lowercased()
                let length =
                    head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap {
                        Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                    } ?? 0
                if request.count >= end + 4 + length { break }
            }
        }
        let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
        guard line.count >= 2 else { return }
        let method = String(line[0])
        counts.withLock { $0[method, default: 0] += 1 }
        let reply = answer(method, String(line[1]))
        var head = "HTTP/1.1 \(reply.status) Status\r\nConnection: close\r\n"
        if reply.headers["Content-Length"] == nil { head += "Content-Length: \(reply.body.count)\r\n" }
        for (name, value) in reply.headers { head += "\(name): \(value)\r\n" }
        var bytes = Array((head + "\r\n").utf8)
        if method != "HEAD" { bytes += reply.body }
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes {
                send(connection, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { return }
            sent += count
        }
    }

    private func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10
        {
            return index
        }
        return nil
    }

    deinit {
        stop()
        close(listener)
    }
}

/// A ListObjectsV2 page of `objects` (key, ETag, size).
func listXML(
    _ objects: [(key: String, etag: String, size: Int)], truncated: Bool = false, token: String? = nil
)
    -> [UInt8]
{
    var xml =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
    xml += "<Name>b</Name><IsTruncated>\(truncated)</IsTruncated>"
    if let token { xml += "<NextContinuationToken>\(token)</NextContinuationToken>" }
    for object in objects {
        xml +=
            "<Contents><Key>\(object.key)</Key><ETag>&quot;\(object.etag)&quot;</ETag><Size>\(object.size)</Size></Contents>"
    }
    return Array((xml + "</ListBucketResult>").utf8)
}
