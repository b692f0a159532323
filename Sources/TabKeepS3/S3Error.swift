public import TabKeepSync

/// Every way an object-store request or sync can fail, each with a sentence that names the cause.
///
/// No case carries a secret: credentials are named by their access key id only, and text the
/// server sent back is cut short and scrubbed of the secret before it is kept.
public enum S3Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server refused the signature or the key (HTTP 403 `SignatureDoesNotMatch`,
    /// `InvalidAccessKeyId`, `AccessDenied`, `ExpiredToken`…).
    case accessDenied(code: String, message: String)
    /// The bucket does not exist (HTTP 404 `NoSuchBucket`).
    case noSuchBucket(String)
    /// The server says this machine's clock is too far from its own (`RequestTimeTooSkewed`).
    case clockSkewed(message: String)
    /// Any other refusal, with the HTTP status and the server's error code.
    case server(status: Int, code: String, message: String)
    /// The server could not be reached, or stopped answering, after every retry.
    case connection(reason: String)
    /// A request took longer than the timeout, after every retry.
    case timeout(seconds: Double)
    /// The server answered with something that is not what S3 answers (a list that does not parse).
    case malformedResponse(reason: String)
    /// The server sent more bytes than any answer to this request may have.
    case responseTooLarge(limit: Int)
    /// The credential provider failed.
    case credentials(reason: String)
    /// An endpoint, bucket, prefix or `s3://` URL that cannot be used.
    case invalidConfiguration(reason: String)
    /// The store or this replica's own log failed (other replicas' objects never throw this: they
    /// are skipped and reported).
    case sync(SyncError)

    /// A sentence naming what is wrong.
    public var description: String {
        switch self {
        case .accessDenied(let code, let message):
            return "the object store refused the request (HTTP 403 \(code)): wrong access key or secret, "
                + "expired session token, or a policy that does not allow it" + detail(message)
        case .noSuchBucket(let bucket):
            return "the object store has no bucket \"\(bucket)\" (HTTP 404 NoSuchBucket)"
        case .clockSkewed(let message):
            return "the object store refused the request: this machine's clock is too far from the server's "
                + "(RequestTimeTooSkewed); set the clock right and sync again" + detail(message)
        case .server(let status, let code, let message):
            return "the object store refused the request (HTTP \(status)\(code.isEmpty ? "" : " " + code))"
                + detail(message)
        case .connection(let reason):
            return "cannot reach the object store: \(reason)"
        case .timeout(let seconds):
            return "the object store did not answer within \(seconds) seconds"
        case .malformedResponse(let reason):
            return "the object store's answer is not an S3 answer: \(reason)"
        case .responseTooLarge(let limit):
            return "the object store's answer is larger than the limit of \(limit) bytes"
        case .credentials(let reason):
            return "no credentials for the object store: \(reason)"
        case .invalidConfiguration(let reason):
            return reason
        case .sync(let error):
            return error.description
        }
    }

    private func detail(_ message: String) -> String {
        message.isEmpty ? "" : ": \(message)"
    }
}
