public import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A minimal S3 client: list a prefix, get an object (conditionally), put an object, each
/// request signed with AWS Signature Version 4 over `URLSession`.
///
/// ```swift
/// let client = try S3Client(
///     configuration: .init(endpoint: URL(string: "https://s3.eu-west-1.amazonaws.com")!, region: "eu-west-1"),
///     credentials: myCognitoProvider)
/// let objects = try await client.listObjects(bucket: "tabkeep-sync", prefix: "users/alice/")
/// ```
///
/// Credentials are asked of the provider before every request, so a provider may refresh them.
/// Answers 500, 502, 503 and 504, dropped connections and timeouts are retried with exponential
/// backoff; a 403, a 404 and `RequestTimeTooSkewed` fail at once with an ``S3Error`` naming the
/// cause. A response body is refused past a limit given per request: the download stops there,
/// so a hostile server cannot make the client buffer more. No response is cached. Keep one
/// client for the app's life: each holds one `URLSession`.
public struct S3Client: Sendable {
    /// Where and how requests go.
    public struct Configuration: Sendable, Hashable {
        /// How the bucket is named in a request.
        public enum Addressing: Sendable, Hashable {
            /// `https://endpoint/bucket/key` (MinIO, SeaweedFS, most self-hosted stores).
            case path
            /// `https://bucket.endpoint/key` (AWS's default).
            case virtualHosted
        }

        /// The server, `scheme://host[:port]` (no path).
        public var endpoint: URL
        /// The region in the signature's scope.
        public var region: String
        /// Path-style or virtual-hosted-style.
        public var addressing: Addressing
        /// How long one request may take.
        public var timeout: Duration
        /// How many times a failed request is tried again (500/502/503/504, connection errors,
        /// timeouts).
        public var retries: Int
        /// The wait before the first retry; each next wait doubles, with up to half again at random.
        public var backoff: Duration

        /// A configuration; `addressing` defaults to path-style, what every S3-compatible server
        /// takes.
        public init(
            endpoint: URL, region: String, addressing: Addressing = .path, timeout: Duration = .seconds(30),
            retries: Int = 3, backoff: Duration = .milliseconds(200)
        ) {
            self.endpoint = endpoint
            self.region = region
            self.addressing = addressing
            self.timeout = timeout
            self.retries = retries
            self.backoff = backoff
        }

        /// AWS S3 in `region`, virtual-hosted-style.
        public static func aws(region: String) -> Configuration {
            Configuration(
                endpoint: URL(string: "https://s3.\(region).amazonaws.com")!, region: region,
                addressing: .virtualHosted)
        }
    }

    /// The result of a conditional GET.
    public enum GetResult: Sendable, Hashable {
        /// The object still has the ETag asked about (HTTP 304): nothing was downloaded.
        case notModified
        /// The object's bytes and ETag (without quotes).
        case object(bytes: [UInt8], etag: String)
    }

    /// Where and how requests go.
    public let configuration: Configuration
    /// Where credentials come from.
    public let credentials: any S3CredentialProvider
    private let session: URLSession
    private let downloads: BoundedDownloads
    private let signer: SignatureV4

    /// The most bytes a list page may have.
    public static let maxListPageSize = 16 << 20

    /// A client; fails when the endpoint is not `http(s)://host[:port]`.
    public init(configuration: Configuration, credentials: any S3CredentialProvider) throws(S3Error) {
        guard let scheme = configuration.endpoint.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = configuration.endpoint.host, !host.isEmpty,
            configuration.endpoint.path.isEmpty || configuration.endpoint.path == "/",
            configuration.endpoint.query == nil
        else {
            throw .invalidConfiguration(
                reason: "endpoint \(configuration.endpoint.absoluteString) is not http(s)://HOST[:PORT]")
        }
        guard !configuration.region.isEmpty else {
            throw .invalidConfiguration(reason: "the region is empty")
        }
        self.configuration = configuration
        self.credentials = credentials
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        sessionConfiguration.timeoutIntervalForRequest = configuration.timeout.seconds
        downloads = BoundedDownloads()
        session = URLSession(configuration: sessionConfiguration, delegate: downloads, delegateQueue: nil)
        signer = SignatureV4(region: configuration.region)
    }

    /// Every object under `prefix`, following continuation tokens (at most `maxPages` pages).
    public func listObjects(bucket: String, prefix: String, maxPages: Int = 1_000) async throws(S3Error)
        -> [S3ObjectSummary]
    {
        var objects: [S3ObjectSummary] = []
        var token: String?
        for _ in 0..<maxPages {
            var query = [(name: "list-type", value: "2"), (name: "prefix", value: prefix)]
            if let token { query.append((name: "continuation-token", value: token)) }
            let response = try await send(
                "GET", bucket: bucket, key: nil, query: query, limit: S3Client.maxListPageSize)
            guard response.status == 200 else { throw failure(response, bucket: bucket, key: nil) }
            let page = try S3XML.listPage(response.body)
            objects += page.objects
            guard let next = page.continuationToken else { return objects }
            guard next != token else {
                throw .malformedResponse(reason: "a list page repeats its own continuation token")
            }
            token = next
        }
        throw .malformedResponse(reason: "the listing goes on past \(maxPages) pages")
    }

    /// The object at `key`, or ``S3Client/GetResult/notModified`` when its ETag is still `ifNoneMatch`.
    /// Fails with ``S3Error/responseTooLarge(limit:)`` past `limit` bytes.
    public func getObject(bucket: String, key: String, ifNoneMatch: String? = nil, limit: Int)
        async throws(S3Error) -> GetResult
    {
        var headers: [String: String] = [:]
        if let ifNoneMatch { headers["if-none-match"] = "\"\(ifNoneMatch)\"" }
        let response = try await send("GET", bucket: bucket, key: key, headers: headers, limit: limit)
        switch response.status {
        case 304:
            return .notModified
        case 200:
            return .object(bytes: response.body, etag: S3XML.unquoted(response.headers["etag"] ?? ""))
        default:
            throw failure(response, bucket: bucket, key: key)
        }
    }

    /// Puts `bytes` at `key` and returns the new ETag (without quotes). A failed PUT leaves the
    /// previous object as it was: S3 replaces an object only once the whole body has arrived.
    @discardableResult
    public func putObject(bucket: String, key: String, bytes: [UInt8]) async throws(S3Error) -> String {
        let response = try await send(
            "PUT", bucket: bucket, key: key, headers: ["content-type": "application/octet-stream"],
            body: bytes,
            limit: 1 << 20)
        guard response.status == 200 else { throw failure(response, bucket: bucket, key: key) }
        return S3XML.unquoted(response.headers["etag"] ?? "")
    }

    // MARK: - Requests

    /// An answer: status, headers by lowercased name, body.
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
    }

    /// Sends a request, retrying 5xx answers, connection errors and timeouts.
    func send(
        _ method: String, bucket: String, key: String?, query: [(name: String, value: String)] = [],
        headers: [String: String] = [:], body: [UInt8] = [], limit: Int
    ) async throws(S3Error) -> Response {
        try S3Client.checkBucketName(bucket)
        var attempt = 0
        while true {
            do throws(S3Error) {
                let response = try await sendOnce(
                    method, bucket: bucket, key: key, query: query, headers: headers, body: body, limit: limit
                )
                guard [500, 502, 503, 504].contains(response.status), attempt < configuration.retries else {
                    return response
                }
            } catch {
                switch error {
                case .connection, .timeout: if attempt >= configuration.retries { throw error }
                default: throw error
                }
            }
            let wait = configuration.backoff * (1 << min(attempt, 16))
            let jitter = Double.random(in: 0...0.5)
            try? await Task.sleep(for: wait + wait * jitter)
            attempt += 1
        }
    }

    private func sendOnce(
        _ method: String, bucket: String, key: String?, query: [(name: String, value: String)],
        headers extra: [String: String], body: [UInt8], limit: Int
    ) async throws(S3Error) -> Response {
        let credentials = try await self.credentials.credentials()
        let endpoint = configuration.endpoint
        var host = endpoint.host!
        var path = "/"
        switch configuration.addressing {
        case .path:
            path += bucket
            if let key { path += "/" + SignatureV4.uriEncode(key, keepSlash: true) }
        case .virtualHosted:
            host = bucket + "." + host
            if let key { path += SignatureV4.uriEncode(key, keepSlash: true) }
        }
        if let port = endpoint.port { host += ":\(port)" }
        let payloadHash = Hashing.hex(Hashing.sha256(body))
        let date = S3Client.amzDate(Date())
        var headers = extra
        headers["host"] = host
        headers["x-amz-date"] = date
        headers["x-amz-content-sha256"] = payloadHash
        if let token = credentials.sessionToken { headers["x-amz-security-token"] = token }
        let authorization = signer.authorization(
            method: method, path: path, query: query, headers: headers, payloadHash: payloadHash, date: date,
            credentials: credentials)
        let encodedQuery = query.map {
            SignatureV4.uriEncode($0.name) + "=" + SignatureV4.uriEncode($0.value)
        }
        guard
            let url = URL(
                string: "\(endpoint.scheme!)://\(host)\(path)"
                    + (encodedQuery.isEmpty ? "" : "?" + encodedQuery.joined(separator: "&")))
        else { throw .invalidConfiguration(reason: "cannot make a URL for key \(key ?? "")") }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData)
        request.httpMethod = method
        request.timeoutInterval = configuration.timeout.seconds
        for (name, value) in headers where name != "host" {
            request.setValue(value, forHTTPHeaderField: name)
        }
        request.setValue(authorization, forHTTPHeaderField: "authorization")
        if method == "PUT" { request.httpBody = Data(body) }
        let data: Data
        let urlResponse: URLResponse
        switch await downloads.run(request, limit: limit, on: session) {
        case .finished(let body, let response):
            (data, urlResponse) = (body, response)
        case .tooLarge:
            throw .responseTooLarge(limit: limit)
        case .failed(let error, _) where error?.code == .timedOut:
            throw .timeout(seconds: configuration.timeout.seconds)
        case .failed(_, let reason):
            throw .connection(reason: scrub(reason, credentials))
        }
        guard let http = urlResponse as? HTTPURLResponse else {
            throw .malformedResponse(reason: "not an HTTP answer")
        }
        var responseHeaders: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String {
                responseHeaders[name.lowercased()] = value
            }
        }
        var response = Response(status: http.statusCode, headers: responseHeaders, body: Array(data))
        if !(200..<400).contains(response.status) {
            // Kept only to name the cause: never echo a secret, even one a hostile server sends back.
            response.body = Array(
                scrub(String(decoding: response.body.prefix(64 << 10), as: UTF8.self), credentials).utf8)
        }
        return response
    }

    /// The error an unsuccessful answer means.
    func failure(_ response: Response, bucket: String, key: String?) -> S3Error {
        let (code, message) = S3XML.error(response.body) ?? ("", "")
        let shortMessage = String(message.prefix(300))
        if code == "RequestTimeTooSkewed" { return .clockSkewed(message: shortMessage) }
        switch response.status {
        case 403:
            return .accessDenied(code: code.isEmpty ? "Forbidden" : code, message: shortMessage)
        case 404 where code == "NoSuchBucket" || (code.isEmpty && key == nil):
            return .noSuchBucket(bucket)
        default:
            return .server(status: response.status, code: code, message: shortMessage)
        }
    }

    /// `text` with the secret and the session token replaced.
    private func scrub(_ text: String, _ credentials: S3Credentials) -> String {
        var text = text
        for secret in [credentials.secretAccessKey, credentials.sessionToken ?? ""] where secret.count >= 4 {
            text = text.replacingOccurrences(of: secret, with: "[hidden]")
        }
        return text
    }

    /// Refuses a bucket name S3 would refuse (3–63 of `a-z 0-9 . -`), before it goes into a URL.
    static func checkBucketName(_ bucket: String) throws(S3Error) {
        let allowed = bucket.utf8.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
        }
        guard (3...63).contains(bucket.utf8.count), allowed else {
            throw .invalidConfiguration(
                reason: "bucket name \"\(bucket)\" is not 3 to 63 lowercase letters, digits, dots and hyphens"
            )
        }
    }

    /// `yyyyMMddTHHmmssZ` in UTC.
    static func amzDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let text = String(value ?? 0)
            return text.count < 2 ? "0" + text : text
        }
        return String(parts.year ?? 1970) + two(parts.month) + two(parts.day) + "T" + two(parts.hour)
            + two(parts.minute) + two(parts.second) + "Z"
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
