/// Bytes that are not a valid encoded document or catalog: where, and why.
///
/// ```swift
/// do { _ = try TabBarDocument(decoding: [9]) } catch { print(error) }  // at byte 0: unknown format 9
/// ```
public struct DocumentDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The byte offset where decoding failed.
    public var offset: Int
    /// What is wrong there.
    public var reason: String

    /// An error at `offset`.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// "at byte N: reason".
    public var description: String { "at byte \(offset): \(reason)" }
}
