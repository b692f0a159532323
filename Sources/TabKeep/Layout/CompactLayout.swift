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
/// ``inlineCapacity`` bytes (a ten-tab bar with a badge and a text takes about 35) live in the
/// value itself; more go to an array.
struct CompactLayout: Sendable {
    /// The catalog's ids in catalog order (the catalog's own array: one retain).
    let tabs: [TabID]
    /// The four counts in two bytes each, and the selection as a kind and a catalog index: a
    /// layout travels by value through a read's closures, so every byte here is copied several
    /// times a read (the value was 200 bytes with `Int` counts, a `Selection` and 128 inline
    /// bytes; it is 96 now).
    private let counts: (shown: UInt16, hidden: UInt16, badges: UInt16, texts: UInt16)
    /// The selection: ``Selected``'s kind and catalog index.
    let selected: Selected
    /// The packed bytes when they fit, else unused.
    private var inline: InlineBytes = (0, 0, 0, 0, 0, 0, 0, 0)
    /// The packed bytes when they do not fit inline.
    private var spilled: [UInt8]?

    /// Eight words: 64 bytes.
    typealias InlineBytes = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    /// How many packed bytes the value holds itself.
    static let inlineCapacity = MemoryLayout<InlineBytes>.size

    /// Bytes per badge: the index and the count.
    static let badgeBytes = 9

    /// The selection as a layout record stores it: a kind (0 none, 1 More, 2 a tab) and, for a
    /// tab, its catalog index.
    struct Selected: Hashable, Sendable {
        /// 0 none, 1 More, 2 the tab at `index`.
        let kind: UInt8
        /// The selected tab's catalog index (0 unless `kind` is 2).
        let index: UInt8

        static let none = Selected(kind: 0, index: 0)
        static let more = Selected(kind: 1, index: 0)
        /// The tab at catalog index `index` (below ``Catalog/maxTabs``).
        static func tab(_ index: Int) -> Selected { Selected(kind: 2, index: UInt8(index)) }
    }

    /// A layout of `size` packed bytes, which `write` fills (all of them) and returns how many it
    /// wrote. Every count is at most ``Catalog/maxTabs``.
    init(
        tabs: [TabID], shownCount: Int, hiddenCount: Int, badgeCount: Int, textCount: Int,
        selected: Selected,
        size: Int, write: (UnsafeMutableRawBufferPointer) -> Int
    ) {
        self.tabs = tabs
        counts = (UInt16(shownCount), UInt16(hiddenCount), UInt16(badgeCount), UInt16(textCount))
        self.selected = selected
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

    var shownCount: Int { Int(counts.shown) }
    var hiddenCount: Int { Int(counts.hidden) }
    var badgeCount: Int { Int(counts.badges) }
    var textCount: Int { Int(counts.texts) }

    /// The stored selection.
    var selection: Selection {
        switch selected.kind {
        case 1: .more
        case 2: .tab(tabs[Int(selected.index)])
        default: .none
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
