/// An access key, its secret and, for temporary credentials (STS, Cognito), a session token.
///
/// The description names the access key id only: the secret and the token never appear in an
/// error, a log line or a report.
public struct S3Credentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The access key id (`AKIA…`, or `ASIA…` for temporary credentials).
    public var accessKeyID: String
    /// The secret access key.
    public var secretAccessKey: String
    /// The session token of temporary credentials, sent as `x-amz-security-token`.
    public var sessionToken: String?

    /// Credentials from their parts.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// "access key AKIA… (secret hidden)".
    public var description: String {
        "access key \(accessKeyID) (secret hidden\(sessionToken == nil ? "" : ", session token hidden"))"
    }

    /// The same as ``description``: the secret stays hidden in a debugger too.
    public var debugDescription: String { description }
}

/// Where an ``S3Client`` gets its credentials, asked before every request so that temporary
/// credentials can be refreshed (an app's provider calls STS or Cognito when its token nears
/// expiry).
public protocol S3CredentialProvider: Sendable {
    /// The credentials to sign the next request with.
    func credentials() async throws(S3Error) -> S3Credentials
}

/// A provider that always gives the same credentials.
public struct StaticCredentialProvider: S3CredentialProvider {
    /// The credentials given.
    public let value: S3Credentials

    /// A provider of `credentials`.
    public init(_ credentials: S3Credentials) {
        value = credentials
    }

    /// ``value``.
    public func credentials() async throws(S3Error) -> S3Credentials { value }
}

/// Credentials from the environment variables AWS's tools read: `AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY` and, for temporary credentials, `AWS_SESSION_TOKEN`.
public struct EnvironmentCredentialProvider: S3CredentialProvider {
    /// The variables read, by name.
    public let environment: [String: String]

    /// A provider reading `environment` (the process's own when not given).
    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// The credentials the variables give, or an error naming the variable that is missing.
    public func credentials() async throws(S3Error) -> S3Credentials {
        try resolved()
    }

    /// ``credentials()`` without the wait, for a caller that wants to fail before starting.
    public func resolved() throws(S3Error) -> S3Credentials {
        func value(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let key = value("AWS_ACCESS_KEY_ID") else {
            throw .credentials(reason: "AWS_ACCESS_KEY_ID is not set")
        }
        guard let secret = value("AWS_SECRET_ACCESS_KEY") else {
            throw .credentials(reason: "AWS_SECRET_ACCESS_KEY is not set")
        }
        return S3Credentials(
            accessKeyID: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
    }
}
