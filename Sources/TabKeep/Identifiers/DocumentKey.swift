/// The LMDB key of a document: profile UTF-8 ‖ 0x00 ‖ bar UTF-8.
///
/// Injective because identifiers never contain NUL: the first 0x00 is always the separator.
///
/// ```swift
/// let key = DocumentKey(profile: try ProfileID("alice"), bar: .main)
/// let same = try DocumentKey(bytes: key.bytes)
/// ```
public struct DocumentKey: Hashable, Comparable, Sendable {
    /// Whose bar.
    public let profile: ProfileID
    /// Which bar.
    public let bar: BarID

    /// The key of (profile, bar).
    public init(profile: ProfileID, bar: BarID) {
        self.profile = profile
        self.bar = bar
    }

    /// The stored key bytes.
    public var bytes: [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(profile.rawValue.utf8.count + 1 + bar.rawValue.utf8.count)
        result.append(contentsOf: profile.rawValue.utf8)
        result.append(0)
        result.append(contentsOf: bar.rawValue.utf8)
        return result
    }

    /// Runs `body` with ``bytes`` built in stack space instead of an array.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var profile = profile.rawValue
        var bar = bar.rawValue
        let profileCount = profile.utf8.count
        let count = profileCount + 1 + bar.utf8.count
        return try withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { buffer in
            profile.withUTF8 { buffer.copyMemory(from: UnsafeRawBufferPointer($0)) }
            buffer[profileCount] = 0
            bar.withUTF8 {
                UnsafeMutableRawBufferPointer(rebasing: buffer[(profileCount + 1)...])
                    .copyMemory(from: UnsafeRawBufferPointer($0))
            }
            return try body(UnsafeRawBufferPointer(buffer))
        }
    }

    /// Parses stored key bytes, validating both identifiers.
    public init(bytes: some Collection<UInt8>) throws(IdentifierError) {
        let array = Array(bytes)
        guard let separator = array.firstIndex(of: 0) else {
            throw IdentifierError(
                field: "profile", value: String(decoding: array, as: UTF8.self),
                rule: "document key must contain a 0x00 separator")
        }
        guard let profileText = String(validating: array[..<separator], as: UTF8.self) else {
            throw IdentifierError(
                field: "profile", value: String(decoding: array[..<separator], as: UTF8.self),
                rule: "must be valid UTF-8")
        }
        guard let barText = String(validating: array[(separator + 1)...], as: UTF8.self) else {
            throw IdentifierError(
                field: "bar", value: String(decoding: array[(separator + 1)...], as: UTF8.self),
                rule: "must be valid UTF-8")
        }
        self.profile = try ProfileID(profileText)
        self.bar = try BarID(barText)
    }

    /// ``init(bytes:)`` of stored key bytes that break no rule, in one pass and without copying
    /// them: nil where they break one, for the caller to take ``init(bytes:)``, which names it
    /// (the slow twin; `DocumentKeyParseDifferentialPropertyTests` holds the two to the same
    /// keys). With `tag`, the bytes are a tagged record's key, profile ‖ 0x00 ‖ tag ‖ bar, read as
    /// `init(bytes:)` reads them with the tag removed. A walk of every document parsed its keys
    /// through four arrays and two validations of Strings: 8 % of a dump's time (perf, 100k).
    package init?(validStoredBytes bytes: UnsafeBufferPointer<UInt8>, tag: UInt8?) {
        guard let separator = bytes.firstIndex(of: 0) else { return nil }
        var barStart = separator + 1
        if let tag {
            guard barStart < bytes.count, bytes[barStart] == tag else { return nil }
            barStart += 1
        }
        let profileBytes = UnsafeBufferPointer(rebasing: bytes[..<separator])
        let barBytes = UnsafeBufferPointer(rebasing: bytes[barStart...])
        guard IdentifierRules.problem(in: profileBytes, maxBytes: ProfileID.maxBytes) == nil,
            IdentifierRules.problem(in: barBytes, maxBytes: BarID.maxBytes) == nil,
            let profile = ByteReader.text(profileBytes), let bar = ByteReader.text(barBytes)
        else { return nil }
        self.init(profile: ProfileID(unchecked: profile), bar: BarID(unchecked: bar))
    }

    /// The order of the key bytes (profile, then bar, byte-wise), as LMDB sorts them.
    public static func < (lhs: DocumentKey, rhs: DocumentKey) -> Bool {
        if lhs.profile != rhs.profile { return lhs.profile < rhs.profile }
        return lhs.bar < rhs.bar
    }
}
