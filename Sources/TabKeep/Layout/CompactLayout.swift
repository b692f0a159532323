/// A ``Layout`` as ``CompactResolver`` resolved it: catalog indices and badge values packed into
/// bytes held inline, so a read allocates nothing of its own; each of `Layout`'s arrays and
/// dictionaries is built from them when it is asked for.
///
/// A launch read built three arrays and two dictionaries (a third of its instructions, half of
/// them looking up the arrays' generic metadata and hashing ids) whether the app asked for them
/// or not. The twin is the plain-values `Layout` that ``ResolvedBar`` builds:
/// `LayoutDecoderDifferentialPropertyTests` compares the two property by property, so every
/// accessor here is held to it.
///
/// The packed bytes are, one after another: the shown tabs' catalog indices (`shownCount`
/// bytes); a customizable flag (0 or 1) for each shown tab; the hidden tabs' catalog indices;
/// `badgeCount` badges, each a catalog index and its count in eight little-endian bytes;
/// `textCount` badge texts, each a catalog index, a length and that many UTF-8 bytes. A catalog
/// has at most ``Catalog/maxTabs`` (256) tabs, so an index is one byte. Up to
/// ``inlineCapacity`` bytes (a ten-tab bar takes about 40) live in the value itself; more go to
/// an array.
struct CompactLayout: Sendable {
    /// The catalog's ids in catalog order (the catalog's own array: one retain).
    let tabs: [TabID]
    let shownCount: Int
    let hiddenCount: Int
    let badgeCount: Int
    let textCount: Int
    let selection: Selection
    /// The packed bytes when they fit, else unused.
    private var inline: InlineBytes = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    /// The packed bytes when they do not fit inline.
    private var spilled: [UInt8]?

    /// Sixteen words: 128 bytes.
    typealias InlineBytes = (
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64
    )
    /// How many packed bytes the value holds itself.
    static let inlineCapacity = MemoryLayout<InlineBytes>.size

    /// Bytes per badge: the index and the count.
    static let badgeBytes = 9

    /// A layout of `size` packed bytes, which `write` fills (all of them) and returns how many it wrote.
    init(
        tabs: [TabID], shownCount: Int, hiddenCount: Int, badgeCount: Int, textCount: Int,
        selection: Selection,
        size: Int, write: (UnsafeMutableRawBufferPointer) -> Int
    ) {
        self.tabs = tabs
        self.shownCount = shownCount
        self.hiddenCount = hiddenCount
        self.badgeCount = badgeCount
        self.textCount = textCount
        self.selection = selection
        if size <= Self.inlineCapacity {
            _ = withUnsafeMutableBytes(of: &inline) {
                write(UnsafeMutableRawBufferPointer(rebasing: $0[..<size]))
            }
        } else {
            spilled = [UInt8](unsafeUninitializedCapacity: size) { buffer, made in
                made = write(UnsafeMutableRawBufferPointer(buffer))
            }
        }
    }

    var hiddenStart: Int { 2 * shownCount }
    var badgesStart: Int { hiddenStart + hiddenCount }
    var textsStart: Int { badgesStart + Self.badgeBytes * badgeCount }

    /// Calls `body` with the packed bytes.
    @inline(__always)
    func withPacked<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let spilled { return spilled.withUnsafeBytes(body) }
        return withUnsafeBytes(of: inline, body)
    }

    var order: [TabID] { ids(from: 0, count: shownCount) }

    var hidden: [TabID] { ids(from: hiddenStart, count: hiddenCount) }

    var customizable: [TabID] {
        withPacked { packed in
            var count = 0
            for slot in 0..<shownCount where packed[shownCount + slot] != 0 { count += 1 }
            if count == 0 { return [] }
            var ids = Self.emptyIDs(capacity: count)
            for slot in 0..<shownCount where packed[shownCount + slot] != 0 {
                ids.append(tabs[Int(packed[slot])])
            }
            return ids
        }
    }

    var badges: [TabID: Int] {
        if badgeCount == 0 { return [:] }
        return withPacked { packed in
            var badges: [TabID: Int] = [:]
            badges.reserveCapacity(badgeCount)
            for badge in 0..<badgeCount {
                let at = badgesStart + Self.badgeBytes * badge
                let count = Int64(littleEndian: packed.loadUnaligned(fromByteOffset: at + 1, as: Int64.self))
                badges[tabs[Int(packed[at])]] = Int(count)
            }
            return badges
        }
    }

    /// The badge count of `tab`, if it shows one: no dictionary built.
    func badge(for tab: TabID) -> Int? {
        withPacked { packed in
            for badge in 0..<badgeCount {
                let at = badgesStart + Self.badgeBytes * badge
                guard tabs[Int(packed[at])] == tab else { continue }
                return Int(Int64(littleEndian: packed.loadUnaligned(fromByteOffset: at + 1, as: Int64.self)))
            }
            return nil
        }
    }

    var badgeTexts: [TabID: String] {
        if textCount == 0 { return [:] }
        return withPacked { packed in
            var texts: [TabID: String] = [:]
            texts.reserveCapacity(textCount)
            var at = textsStart
            for _ in 0..<textCount {
                let length = Int(packed[at + 1])
                let text = UnsafeRawBufferPointer(rebasing: packed[(at + 2)..<(at + 2 + length)])
                texts[tabs[Int(packed[at])]] = String(decoding: text, as: UTF8.self)
                at += 2 + length
            }
            return texts
        }
    }

    /// The badge text of `tab`, if it shows one: no dictionary built.
    func badgeText(for tab: TabID) -> String? {
        withPacked { packed in
            var at = textsStart
            for _ in 0..<textCount {
                let length = Int(packed[at + 1])
                if tabs[Int(packed[at])] == tab {
                    return String(
                        decoding: UnsafeRawBufferPointer(rebasing: packed[(at + 2)..<(at + 2 + length)]),
                        as: UTF8.self)
                }
                at += 2 + length
            }
            return nil
        }
    }

    /// Every property as a plain value.
    var values: Layout.Values {
        Layout.Values(
            order: order, hidden: hidden, customizable: customizable, selection: selection, badges: badges,
            badgeTexts: badgeTexts)
    }

    /// The ids of the `count` catalog indices at `start` in the packed bytes.
    private func ids(from start: Int, count: Int) -> [TabID] {
        if count == 0 { return [] }
        return withPacked { packed in
            var ids = Self.emptyIDs(capacity: count)
            for slot in start..<(start + count) { ids.append(tabs[Int(packed[slot])]) }
            return ids
        }
    }

    /// An empty array with room for `capacity` ids. Reserving and appending is specialized here;
    /// `Array(unsafeUninitializedCapacity:)` allocates through the standard library's generic entry
    /// point, which looks up `[TabID]`'s storage type in the runtime's metadata cache on every
    /// call (a third of building a ten-tab order, callgrind).
    @inline(__always)
    private static func emptyIDs(capacity: Int) -> [TabID] {
        var ids: [TabID] = []
        ids.reserveCapacity(capacity)
        return ids
    }
}
