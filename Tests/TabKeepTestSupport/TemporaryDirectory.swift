import Foundation

/// A fresh directory for one test (tests run in parallel), removed when the value goes away.
package final class TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    package let path: String

    package init() {
        path = FileManager.default.temporaryDirectory.path + "/tabkeep-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    package func sub(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
