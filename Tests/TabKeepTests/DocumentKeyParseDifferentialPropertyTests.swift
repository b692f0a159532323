import TabKeepTestSupport
import Testing

@testable import TabKeep

/// A stored document key parsed in one pass (`DocumentKey(validStoredBytes:tag:)`, which every
/// walk of the documents takes) against its slow twin, `DocumentKey(bytes:)` and the tagged
/// records' `checkedDocumentKey(from:tag:)`: over valid keys and keys broken in every way a rule
/// names, the fast path gives the slow one's key wherever that one gives a key, and declines
/// wherever it throws, so that the walk always ends with the slow one's key or its error.
@Suite struct DocumentKeyParseDifferentialPropertyTests {
    /// Bytes that come up in identifiers and that break their rules: NUL, controls, a C1 control's
    /// lead byte, bytes of multi-byte UTF-8 and bytes that are never UTF-8.
    static let alphabet: [UInt8] = [
        0x00, 0x01, 0x1F, 0x20, 0x61, 0x62, 0x64, 0x7F, 0x80, 0x85, 0xA9, 0xC2, 0xC3, 0xE6, 0xFF,
    ]

    static func randomKey(_ random: inout SplitMix64, tag: UInt8?) -> [UInt8] {
        func id(_ limit: Int) -> [UInt8] {
            let count = Int(random.next() % UInt64(limit + 2))
            if random.next() % 3 != 0 {
                return (0..<count).map { _ in UInt8(ascii: "a") + UInt8(random.next() % 26) }
            }
            return (0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
        }
        var key = id(random.next() % 8 == 0 ? ProfileID.maxBytes : 12)
        switch random.next() % 10 {
        case 0: return key  // no separator, unless the profile holds one
        case 1: key.append(0)
        default:
            key.append(0)
            if let tag { key.append(random.next() % 12 == 0 ? UInt8(ascii: "x") : tag) }
        }
        key += id(random.next() % 8 == 0 ? BarID.maxBytes : 12)
        return key
    }

    @Test func anUntaggedKeyParsesAsTheArrayParserParsesIt() {
        var random = SplitMix64(seed: 0x2A1)
        var accepted = 0
        for index in 0..<60_000 {
            let bytes = Self.randomKey(&random, tag: nil)
            let fast = bytes.withUnsafeBufferPointer { DocumentKey(validStoredBytes: $0, tag: nil) }
            switch Result(catching: { () throws(IdentifierError) in try DocumentKey(bytes: bytes) }) {
            case .success(let slow):
                accepted += 1
                #expect(fast == slow, "key \(index): \(bytes)")
                #expect(fast?.bytes == bytes, "key \(index): \(bytes)")
            case .failure:
                #expect(
                    fast == nil, "key \(index): \(bytes) is refused, fast gave \(String(describing: fast))")
            }
        }
        #expect(accepted > 10_000 && accepted < 50_000, "accepted \(accepted) of 60,000")
    }

    @Test func aTaggedKeyParsesAsTheStoreSlowParserParsesIt() throws {
        let directory = TemporaryDirectory()
        let store = try TabKeepStore(path: directory.sub("store"))
        #expect(store.spaces.tagged)
        var random = SplitMix64(seed: 0x2A2)
        var accepted = 0
        for index in 0..<60_000 {
            let tag = random.next() % 2 == 0 ? Records.Tag.document : Records.Tag.layout
            let bytes = Self.randomKey(&random, tag: tag)
            let fast = Result {
                try bytes.withUnsafeBytes { try store.spaces.documentKey(from: $0, tag: tag) }
            }
            let direct = bytes.withUnsafeBufferPointer { DocumentKey(validStoredBytes: $0, tag: tag) }
            do {
                let slow = try store.spaces.checkedDocumentKey(from: bytes, tag: tag)
                accepted += 1
                #expect(direct == slow && (try? fast.get()) == slow, "key \(index): \(bytes)")
            } catch {
                #expect(
                    direct == nil,
                    "key \(index): \(bytes) is refused, fast gave \(String(describing: direct))")
                #expect((try? fast.get()) == nil, "key \(index): \(bytes)")
            }
        }
        #expect(accepted > 10_000 && accepted < 50_000, "accepted \(accepted) of 60,000")
    }

    @Test func aRefusedKeyThrowsTheSlowParsersError() throws {
        let directory = TemporaryDirectory()
        let store = try TabKeepStore(path: directory.sub("store"))
        var random = SplitMix64(seed: 0x2A3)
        var refused = 0
        for _ in 0..<5_000 {
            let bytes = Self.randomKey(&random, tag: Records.Tag.document)
            let slow = Result { try store.spaces.checkedDocumentKey(from: bytes) }
            let fast = Result { try bytes.withUnsafeBytes { try store.spaces.documentKey(from: $0) } }
            switch (slow, fast) {
            case (.success(let left), .success(let right)): #expect(left == right)
            case (.failure(let left), .failure(let right)):
                refused += 1
                #expect("\(left)" == "\(right)")
            default: Issue.record("\(bytes): \(slow) against \(fast)")
            }
        }
        #expect(refused > 500)
    }
}
