/// One object of a listing.
public struct S3ObjectSummary: Hashable, Sendable {
    /// The object's key.
    public var key: String
    /// The object's ETag without its quotes.
    public var etag: String
    /// The object's size in bytes.
    public var size: Int

    /// A summary from its parts.
    public init(key: String, etag: String, size: Int) {
        self.key = key
        self.etag = etag
        self.size = size
    }
}

/// One page of a `ListObjectsV2` answer.
package struct S3ListPage: Hashable, Sendable {
    /// The objects on this page.
    package var objects: [S3ObjectSummary] = []
    /// The token of the next page, when the listing is truncated.
    package var continuationToken: String?
}

/// Parses S3's XML answers: a `ListBucketResult` page and an `Error` body. Strict: an answer
/// without the expected root, a `Contents` without a key, an ETag or a size, or a truncated page
/// without a continuation token is refused whole.
///
/// The XML reader is this package's own (``XMLReader``), not FoundationXML's `XMLParser`: the
/// `list` fuzz target made that one trap on an element name that is not UTF-8 and crash in
/// `strlen` on other mutated answers.
package enum S3XML {
    /// The most objects one page may hold (S3 sends at most 1,000).
    package static let maxObjectsPerPage = 10_000

    /// A `ListBucketResult` page.
    package static func listPage(_ bytes: [UInt8]) throws(S3Error) -> S3ListPage {
        let tree = try parse(bytes)
        guard tree.name == "ListBucketResult" else {
            throw .malformedResponse(
                reason: "a list answer whose root is <\(tree.name)>, not <ListBucketResult>")
        }
        var page = S3ListPage()
        let contents = tree.children.filter { $0.name == "Contents" }
        guard contents.count <= maxObjectsPerPage else {
            throw .malformedResponse(reason: "\(contents.count) objects on one list page")
        }
        for item in contents {
            guard let key = item.child("Key"), !key.isEmpty else {
                throw .malformedResponse(reason: "a listed object without a key")
            }
            guard let etag = item.child("ETag") else {
                throw .malformedResponse(reason: "listed object \(key) has no ETag")
            }
            guard let sizeText = item.child("Size"), let size = Int(sizeText), size >= 0 else {
                throw .malformedResponse(reason: "listed object \(key) has no valid size")
            }
            page.objects.append(S3ObjectSummary(key: key, etag: unquoted(etag), size: size))
        }
        if tree.child("IsTruncated") == "true" {
            guard let token = tree.child("NextContinuationToken"), !token.isEmpty else {
                throw .malformedResponse(reason: "a truncated list page without a continuation token")
            }
            page.continuationToken = token
        }
        return page
    }

    /// The code and message of an `<Error>` body, or nil when the body is not one.
    package static func error(_ bytes: [UInt8]) -> (code: String, message: String)? {
        guard let tree = try? parse(bytes), tree.name == "Error" else { return nil }
        return (tree.child("Code") ?? "", tree.child("Message") ?? "")
    }

    /// An ETag without the quotes S3 puts around it.
    package static func unquoted(_ etag: String) -> String {
        var text = Substring(etag)
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
        return String(text)
    }

    /// An element: its name, its text, its child elements.
    package final class Element {
        package let name: String
        package var text = ""
        package var children: [Element] = []

        init(name: String) {
            self.name = name
        }

        /// The text of the first child named `name`.
        package func child(_ name: String) -> String? {
            children.first { $0.name == name }?.text
        }
    }

    /// The document's root element; refuses bytes that are not the plain XML S3 answers with.
    package static func parse(_ bytes: [UInt8]) throws(S3Error) -> Element {
        var reader = XMLReader(bytes: bytes)
        return try reader.document()
    }
}
