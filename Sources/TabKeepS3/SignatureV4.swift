/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`) for one request, as the AWS documentation
/// defines it: a canonical request, a string to sign, a key derived from the secret for the day,
/// region and service, and the signature over the string.
///
/// ```swift
/// let signer = SignatureV4(region: "us-east-1", service: "s3")
/// let authorization = signer.authorization(
///     method: "GET", path: "/bucket/key", query: [], headers: ["host": "s3.amazonaws.com", …],
///     payloadHash: SignatureV4.emptyPayloadHash, date: "20130524T000000Z", credentials: credentials)
/// ```
///
/// S3 signs the path as sent (each segment URI-encoded once, not normalized), which is what
/// ``uriEncode(_:keepSlash:)`` makes.
public struct SignatureV4: Sendable {
    /// The region in the credential scope (`us-east-1`; any string a non-AWS store accepts).
    public var region: String
    /// The service in the credential scope (`s3`).
    public var service: String

    /// The SHA-256 of an empty body, hex.
    public static let emptyPayloadHash = Hashing.hex(Hashing.sha256([]))

    /// A signer for `service` in `region`.
    public init(region: String, service: String = "s3") {
        self.region = region
        self.service = service
    }

    /// The canonical request: method, path, sorted encoded query, sorted lowercased headers with
    /// trimmed values, the signed header names, and the payload hash, one per line.
    public func canonicalRequest(
        method: String, path: String, query: [(name: String, value: String)], headers: [String: String],
        payloadHash: String
    ) -> String {
        let encoded: [(name: String, value: String)] = query.map {
            (SignatureV4.uriEncode($0.name), SignatureV4.uriEncode($0.value))
        }
        let sorted = encoded.sorted { $0.name == $1.name ? $0.value < $1.value : $0.name < $1.name }
        let canonicalQuery = sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
        let canonical = SignatureV4.canonicalHeaders(headers)
        let headerLines: String = canonical.map { $0.name + ":" + $0.value + "\n" }.joined()
        let signedHeaders: String = canonical.map(\.name).joined(separator: ";")
        let lines: [String] = [method, path, canonicalQuery, headerLines, signedHeaders, payloadHash]
        return lines.joined(separator: "\n")
    }

    /// The string to sign for a canonical request made at `date` (`yyyyMMddTHHmmssZ`).
    public func stringToSign(canonicalRequest: String, date: String) -> String {
        [
            "AWS4-HMAC-SHA256", date, scope(date: date),
            Hashing.hex(Hashing.sha256(Array(canonicalRequest.utf8))),
        ].joined(separator: "\n")
    }

    /// The hex signature of a request.
    public func signature(
        method: String, path: String, query: [(name: String, value: String)], headers: [String: String],
        payloadHash: String, date: String, secretAccessKey: String
    ) -> String {
        let request = canonicalRequest(
            method: method, path: path, query: query, headers: headers, payloadHash: payloadHash)
        let day = Array(date.utf8.prefix(8))
        var key = Hashing.hmacSHA256(key: Array("AWS4\(secretAccessKey)".utf8), day)
        key = Hashing.hmacSHA256(key: key, Array(region.utf8))
        key = Hashing.hmacSHA256(key: key, Array(service.utf8))
        key = Hashing.hmacSHA256(key: key, Array("aws4_request".utf8))
        let text = stringToSign(canonicalRequest: request, date: date)
        return Hashing.hex(Hashing.hmacSHA256(key: key, Array(text.utf8)))
    }

    /// The `Authorization` header of a request; `headers` must already hold every header to
    /// sign (`host`, `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token`…).
    public func authorization(
        method: String, path: String, query: [(name: String, value: String)], headers: [String: String],
        payloadHash: String, date: String, credentials: S3Credentials
    ) -> String {
        let signed = SignatureV4.canonicalHeaders(headers).map(\.name).joined(separator: ";")
        let value = signature(
            method: method, path: path, query: query, headers: headers, payloadHash: payloadHash, date: date,
            secretAccessKey: credentials.secretAccessKey)
        return "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope(date: date)), "
            + "SignedHeaders=\(signed), Signature=\(value)"
    }

    /// `day/region/service/aws4_request`.
    func scope(date: String) -> String {
        "\(date.prefix(8))/\(region)/\(service)/aws4_request"
    }

    /// Headers by lowercased name, sorted, each value trimmed with inner runs of spaces made one.
    static func canonicalHeaders(_ headers: [String: String]) -> [(name: String, value: String)] {
        headers.map { name, value in
            let words = value.split(separator: " ", omittingEmptySubsequences: true)
            return (name.lowercased(), words.joined(separator: " "))
        }
        .sorted { $0.name < $1.name }
    }

    /// URI-encodes as SigV4 wants: every byte but `A-Z a-z 0-9 - _ . ~` (and `/` when
    /// `keepSlash`) becomes `%XY` with uppercase hex.
    public static func uriEncode(_ text: String, keepSlash: Bool = false) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                UInt8(ascii: "."),
                UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepSlash:
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
