import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepS3

/// `tabkeep sync STORE --s3 …` end to end, against SeaweedFS.
@Suite struct SyncCommandS3Tests {
    /// The built `tabkeep`, next to the test bundle.
    static let binary: String = {
        let candidates = [
            URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL,
        ].map { $0.appendingPathComponent("tabkeep").path }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }()

    /// Runs `tabkeep arguments…` with `environment` added; status, stdout, stderr.
    func tabkeep(_ arguments: [String], environment: [String: String]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SyncCommandS3Tests.binary)
        process.arguments = arguments
        var variables = ProcessInfo.processInfo.environment
        for name in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION"] {
            variables[name] = nil
        }
        variables.merge(environment) { $1 }
        process.environment = variables
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: stdout, as: UTF8.self),
            String(decoding: stderr, as: UTF8.self)
        )
    }

    @Test func syncThroughS3ConvergesTwoStoresAndNeverPrintsTheSecret() async throws {
        let server = try await SeaweedFS.server()
        let bucket = try await server.bucket()
        let directory = TemporaryDirectory()
        let phone = try directory.store("phone")
        let laptop = try directory.store("laptop")
        try await phone.edit(profile("alice"), catalog: letterTabs, .move(tab("f"), to: 0))
        try await laptop.edit(profile("alice"), catalog: letterTabs, .setHidden(tab("b"), true))
        let environment = [
            "AWS_ACCESS_KEY_ID": SeaweedFS.accessKey, "AWS_SECRET_ACCESS_KEY": SeaweedFS.secret,
            "AWS_REGION": "us-east-1",
        ]
        let location = "s3://\(bucket)/users/alice"
        let endpoint = server.endpoint.absoluteString
        for path in [directory.sub("phone"), directory.sub("laptop"), directory.sub("phone")] {
            let (status, stdout, stderr) = try tabkeep(
                ["sync", path, "--s3", location, "--endpoint", endpoint, "--profile", "alice"],
                environment: environment)
            #expect(status == 0, "\(stderr)")
            #expect(stdout.contains("requests"))
            #expect(!stdout.contains(SeaweedFS.secret) && !stderr.contains(SeaweedFS.secret))
        }
        #expect(
            try phone.layout(profile("alice"), catalog: letterTabs)
                == laptop.layout(profile("alice"), catalog: letterTabs))
        #expect(try phone.layout(profile("alice"), catalog: letterTabs).order.first == tab("f"))
        #expect(try laptop.layout(profile("alice"), catalog: letterTabs).hidden == [tab("b")])

        // A wrong secret: exit 1, the cause named, the secret nowhere.
        let wrong = "not-the-secret-5521"
        var bad = environment
        bad["AWS_SECRET_ACCESS_KEY"] = wrong
        let (status, stdout, stderr) = try tabkeep(
            ["sync", directory.sub("phone"), "--s3", location, "--endpoint", endpoint], environment: bad)
        #expect(status == 1)
        #expect(stderr.contains("403") && stderr.contains("SignatureDoesNotMatch"))
        #expect(!(stdout + stderr).contains(wrong))
        // No credentials at all: named before any request.
        let (missing, _, missingErr) = try tabkeep(
            ["sync", directory.sub("phone"), "--s3", location, "--endpoint", endpoint], environment: [:])
        #expect(missing == 1 && missingErr.contains("AWS_ACCESS_KEY_ID is not set"))
        // The help names the variables, never a value.
        let (_, help, _) = try tabkeep(["sync", "--help"], environment: environment)
        #expect(
            help.contains("--s3") && help.contains("AWS_SECRET_ACCESS_KEY")
                && !help.contains(SeaweedFS.secret))
        // Usage errors.
        let (usage, _, usageErr) = try tabkeep(
            ["sync", directory.sub("phone"), "--s3", "bucket/prefix"], environment: environment)
        #expect(usage == 2 && usageErr.contains("s3://BUCKET/PREFIX"))
    }
}
