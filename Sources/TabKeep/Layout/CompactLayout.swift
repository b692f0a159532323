import Synchronization

/// A ``Layout`` as ``CompactResolver`` resolved it: catalog indices and badge values in one byte
/// array, with each of `Layout`'s arrays and dictionaries built on first access and kept.
///
/// A launch read built three arrays and two dictionaries (a third of its instructions, half of
/// them looking up the arrays' generic metadata and hashing ids) whether the app asked for them
/// or not; it now builds one byte array. The twin is the plain-values `Layout` that
/// ``ResolvedBar`` builds: `LayoutDecoderDifferentialPropertyTests` compares the two property by
/// property, so every accessor here is held to it.
///
/// `packed` holds, one after another: the shown tabs' catalog indices (`shownCount` bytes); a
/// customizable flag (0 or 1) for each shown tab; the hidden tabs' catalog indices; `badgeCount`
/// badges, each a catalog index and its count in eight little-endian bytes; `textCount` badge
/// texts, each a catalog index, a length and that many UTF-8 bytes. A catalog has at most
/// ``Catalog/maxTabs`` (256) tabs, so an index is one byte.
final class CompactLayout: Sendable {
    /// The catalog's ids in catalog order (the catalog's own array: one retain).
    let tabs: [TabID]
    let packed: [UInt8]
    let shownCount: Int
    let hiddenCount: Int
    let badgeCount: Int
    let textCount: Int
    let selection: Selection
    private let cache = Mutex(Cache())

    /// What has been built so far.
    private struct Cache {
        var order: [TabID]?
        var hidden: [TabID]?
        var customizable: [TabID]?
        var badges: [TabID: Int]?
        var badgeTexts: [TabID: String]?
    }

    init(
        tabs: [TabID], packed: [UInt8], shownCount: Int, hiddenCount: Int, badgeCount: Int, textCount: Int,
        selection: Selection
    ) {
        self.tabs = tabs
        self.packed = packed
        self.shownCount = shownCount
        self.hiddenCount = hiddenCount
        self.badgeCount = badgeCount
        self.textCount = textCount
        self.selection = selection
    }

    /// Bytes per badge in `packed`: the index and the count.
    static let badgeBytes = 9

    private var hiddenStart: Int { 2 * shownCount }
    private var badgesStart: Int { hiddenStart + hiddenCount }
    private var textsStart: Int { badgesStart + Self.badgeBytes * badgeCount }

    var order: [TabID] {
        cache.withLock { cache in
            if let order = cache.order { return order }
            let order = ids(from: 0, count: shownCount)
            cache.order = order
            return order
        }
    }

    var hidden: [TabID] {
        cache.withLock { cache in
            if let hidden = cache.hidden { return hidden }
            let hidden = ids(from: hiddenStart, count: hiddenCount)
            cache.hidden = hidden
            return hidden
        }
    }

    var customizable: [TabID] {
        cache.withLock { cache in
            if let customizable = cache.customizable { return customizable }
            let customizable = packed.withUnsafeBufferPointer { packed in
                var count = 0
                for slot in 0..<shownCount where packed[shownCount + slot] != 0 { count += 1 }
                if count == 0 { return [TabID]() }
                return [TabID](unsafeUninitializedCapacity: count) { buffer, made in
                    for slot in 0..<shownCount where packed[shownCount + slot] != 0 {
                        (buffer.baseAddress! + made).initialize(to: tabs[Int(packed[slot])])
                        made += 1
                    }
                }
            }
            cache.customizable = customizable
            return customizable
        }
    }

    var badges: [TabID: Int] {
        cache.withLock { cache in
            if let badges = cache.badges { return badges }
            var badges: [TabID: Int] = [:]
            if badgeCount > 0 {
                badges.reserveCapacity(badgeCount)
                packed.withUnsafeBytes { packed in
                    for badge in 0..<badgeCount {
                        let at = badgesStart + Self.badgeBytes * badge
                        let count = Int64(
                            littleEndian: packed.loadUnaligned(fromByteOffset: at + 1, as: Int64.self))
                        badges[tabs[Int(packed[at])]] = Int(count)
                    }
                }
            }
            cache.badges = badges
            return badges
        }
    }

    var badgeTexts: [TabID: String] {
        cache.withLock { cache in
            if let texts = cache.badgeTexts { return texts }
            var texts: [TabID: String] = [:]
            if textCount > 0 {
                texts.reserveCapacity(textCount)
                packed.withUnsafeBufferPointer { packed in
                    var at = textsStart
                    for _ in 0..<textCount {
                        let length = Int(packed[at + 1])
                        let text = UnsafeBufferPointer(rebasing: packed[(at + 2)..<(at + 2 + length)])
                        texts[tabs[Int(packed[at])]] = String(decoding: text, as: UTF8.self)
                        at += 2 + length
                    }
                }
            }
            cache.badgeTexts = texts
            return texts
        }
    }

    /// Every property as a plain value.
    var values: Layout.Values {
        Layout.Values(
            order: order, hidden: hidden, customizable: customizable, selection: selection, badges: badges,
            badgeTexts: badgeTexts)
    }

    /// The ids of the `count` catalog indices at `start` in `packed`.
    private func ids(from start: Int, count: Int) -> [TabID] {
        if count == 0 { return [] }
        return packed.withUnsafeBufferPointer { packed in
            [TabID](unsafeUninitializedCapacity: count) { buffer, made in
                for slot in start..<(start + count) {
                    (buffer.baseAddress! + made).initialize(to: tabs[Int(packed[slot])])
                    made += 1
                }
            }
        }
    }
}
