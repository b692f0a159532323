#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tool's messages on stderr, each line one `write(2)` (a parent reading it never sees half a
/// line): `NAME: error: …`, `NAME: warning: …`, or plain notes.
public struct Diagnostics: Sendable {
    /// The tool's name, as messages start.
    public let tool: String

    /// Messages of `tool`.
    public init(tool: String) { self.tool = tool }

    /// `tool: error: message`.
    public func error(_ message: String) { Self.writeLine("\(tool): error: \(message)", to: 2) }

    /// `tool: warning: message`: a problem that did not stop the command.
    public func warning(_ message: String) { Self.writeLine("\(tool): warning: \(message)", to: 2) }

    /// A line of its own on stderr (a usage line, a summary of written files).
    public func note(_ message: String) { Self.writeLine(message, to: 2) }

    /// Writes `text` and a newline to `descriptor` in as few `write(2)` calls as it takes.
    public static func writeLine(_ text: String, to descriptor: Int32) {
        let bytes = Array((text + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes {
                write(descriptor, $0.baseAddress! + offset, $0.count - offset)
            }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            offset += count
        }
    }
}
