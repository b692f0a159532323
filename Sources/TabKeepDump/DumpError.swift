/// Why a dump cannot be read: the line (1-based) and what is wrong with it.
///
/// ```swift
/// do { _ = try DumpReader.check(path: "backup.tkdump") } catch { print(error) }  // "line 7: duplicate document …"
/// ```
public struct DumpError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The line the problem is on; 0 when it is about the file as a whole.
    public var line: Int
    /// What is wrong, as a sentence fragment.
    public var reason: String

    /// A problem on `line`.
    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    /// "line N: reason", or just the reason for the file as a whole.
    public var description: String { line > 0 ? "line \(line): \(reason)" : reason }
}
