/// A document already in the bytes a store keeps (``TabBarDocument/encoded()``), with what a
/// write needs besides them: its dots, sorted and unique, and its newest stamp. A restore's
/// transcoded dump lines come as these, so a `replace` into a fresh file writes them without
/// building the document at all.
///
/// Whoever makes one vouches that the bytes are a valid document holding exactly these dots
/// (`DumpLineTranscoder`, against its slow twin); ``init(_:)`` makes one from a document.
package struct EncodedDocument: Sendable, Hashable {
    /// The document's bytes, as ``TabBarDocument/encoded()`` writes them.
    package let bytes: [UInt8]
    /// Every dot the document holds, sorted, none twice (``TabBarDocument/dots``).
    package let dots: [Dot]
    /// The highest stamp in the document (``TabBarDocument/maxStamp``).
    package let maxStamp: Stamp

    /// Bytes and the facts about them that their maker has checked.
    package init(bytes: [UInt8], dots: [Dot], maxStamp: Stamp) {
        self.bytes = bytes
        self.dots = dots
        self.maxStamp = maxStamp
    }

    /// The encoding of `document`.
    package init(_ document: TabBarDocument) {
        self.init(bytes: document.encoded(), dots: document.dots, maxStamp: document.maxStamp)
    }

    /// The document the bytes hold.
    package func decoded() throws(DocumentDecodingError) -> TabBarDocument {
        try TabBarDocument(decoding: bytes)
    }
}

/// One document an import is fed: decoded, or in the bytes a store keeps.
package enum ImportedDocument: Sendable {
    /// A document.
    case decoded(TabBarDocument)
    /// A document's bytes.
    case encoded(EncodedDocument)

    /// The highest stamp in the document.
    package var maxStamp: Stamp {
        switch self {
        case .decoded(let document): document.maxStamp
        case .encoded(let encoded): encoded.maxStamp
        }
    }

    /// The document, decoded from its bytes when it came encoded.
    package func document() throws(DocumentDecodingError) -> TabBarDocument {
        switch self {
        case .decoded(let document): document
        case .encoded(let encoded): try encoded.decoded()
        }
    }
}
