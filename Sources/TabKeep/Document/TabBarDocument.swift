/// The mergeable state of one (profile, bar): a set of last-writer-wins entries and a clear.
///
/// Merge is a join: commutative, associative and idempotent, byte for byte. Edits are applied as a
/// replica, which gives every written entry a fresh stamp and dot.
///
/// ```swift
/// var replica = Replica(id: .random())
/// let catalog = try Catalog([try TabID("a"), try TabID("b")])
/// var document = TabBarDocument()
/// try document.apply(.move(try TabID("b"), to: 0), catalog: catalog, by: &replica)
/// document.layout(catalog: catalog).order  // [b, a]
/// let bytes = document.encoded()
/// let copy = try TabBarDocument(decoding: bytes)
/// ```
public struct TabBarDocument: Hashable, Sendable {
    /// Entries sorted by key, one per key. Covered entries are kept as `.removed` tombstones.
    var storage: [Entry]

    /// The empty document.
    public init() {
        storage = []
    }

    /// Sorted, unique, already validated entries.
    init(sorted: [Entry]) {
        storage = sorted
    }

    /// The entries, in canonical (encoding) order.
    public var entries: [Entry] { storage }

    /// A document from entries (any order), validated like a decoded one: duplicates, caps, values.
    public init(entries: [Entry]) throws(DocumentDecodingError) {
        try self.init(entries: entries, identifiersChecked: false)
    }

    /// ``init(entries:)``, skipping the check of every tab id when `identifiersChecked` (a dump
    /// line's scanner checked each as it read it, as the binary decoder does).
    package init(entries: [Entry], identifiersChecked: Bool) throws(DocumentDecodingError) {
        // Entries usually come in canonical order (a dump line holds them so): then there is
        // nothing to sort and no duplicate to look for. Indexed, so no entry is copied.
        var inOrder = true
        for index in entries.indices.dropFirst() where !(entries[index - 1].key < entries[index].key) {
            inOrder = false
            break
        }
        let sorted = inOrder ? entries : entries.sorted { $0.key < $1.key }
        for index in sorted.indices.dropFirst() where !inOrder && sorted[index - 1].key == sorted[index].key {
            throw DocumentDecodingError(
                offset: index, reason: "entry \(index): duplicate key \(sorted[index].key)")
        }
        let document = TabBarDocument(sorted: sorted)
        if let problem = document.problems(checkingIdentifiers: !identifiersChecked).first {
            throw DocumentDecodingError(offset: 0, reason: problem)
        }
        // A dot names one write of one entry: two entries holding one would make the store's dots
        // index point two ways. Checked here, where documents come in from outside (a dump's line;
        // a sync message checks its documents too); `verify()` reports it in a stored document.
        let dots = document.dots
        if let index = dots.indices.dropFirst().first(where: { dots[$0 - 1] == dots[$0] }) {
            throw DocumentDecodingError(offset: 0, reason: "dot \(dots[index]) is held by two entries")
        }
        self = document
    }

    /// Whether the document has no entries.
    public var isEmpty: Bool { storage.isEmpty }

    /// Every dot the document holds (entries and the clear), sorted, for the store's `dots` database.
    public var dots: [Dot] { storage.map(\.dot).sorted() }

    /// The clear's context (empty when the bar was never cleared).
    var context: VersionVector {
        if let last = storage.last, case .context(let vector, _) = last.value { return vector }
        return VersionVector()
    }

    /// The badge totals the clear had seen (empty when the bar was never cleared).
    var badgeMarks: [BadgeMark] {
        if let last = storage.last, case .context(_, let badges) = last.value { return badges }
        return []
    }

    /// The part of the document a peer that has seen `vector` lacks (entries and clear whose dot is
    /// not in it). For sync.
    public func delta(after vector: VersionVector) -> TabBarDocument {
        TabBarDocument(sorted: storage.filter { !vector.contains($0.dot) })
    }

    /// The highest stamp in the document (for the clock guard).
    public var maxStamp: Stamp {
        storage.reduce(Stamp.zero) { max($0, $1.stamp) }
    }

    /// Checks internal invariants (for `verify`): returns problems, empty when fine.
    public func problems() -> [String] { problems(checkingIdentifiers: true) }

    /// ``problems()``, leaving out the check of every tab id unless `checkingIdentifiers`.
    func problems(checkingIdentifiers: Bool) -> [String] {
        var problems: [String] = []
        let context = self.context
        var counts = [Int](repeating: 0, count: EntryKind.allCases.count)  // by kind byte
        for (index, entry) in storage.enumerated() {
            if index > 0 && !(storage[index - 1].key < entry.key) {
                problems.append("entry \(index): keys not in canonical order")
            }
            if let problem = Entry.problem(of: entry, checkingIdentifiers: checkingIdentifiers) {
                problems.append("entry \(index) (\(entry.key)): \(problem)")
            }
            if entry.key != .cleared {
                let covered = context.contains(entry.dot)
                if covered && entry.value != .removed {
                    problems.append("entry \(index) (\(entry.key)): covered by the clear but not removed")
                } else if !covered && entry.value == .removed {
                    problems.append("entry \(index) (\(entry.key)): removed but not covered by the clear")
                }
            }
            counts[Int(entry.key.kind.rawValue)] += 1
        }
        if storage.count > TabBarDocument.maxEntries {
            problems.append("\(storage.count) entries; at most \(TabBarDocument.maxEntries)")
        }
        for kind in EntryKind.allCases where counts[Int(kind.rawValue)] > kind.maxCount {
            problems.append(
                "\(counts[Int(kind.rawValue)]) entries of kind \(kind.rawValue); at most \(kind.maxCount)")
        }
        return problems
    }

    /// The stored entry of `key` (tombstones included), by binary search.
    func entry(for key: Entry.Key) -> Entry? {
        var low = 0
        var high = storage.count
        while low < high {
            let middle = (low + high) / 2
            if storage[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return low < storage.count && storage[low].key == key ? storage[low] : nil
    }

    /// The index of the first entry whose kind is `kind` or later (`storage.count` if none), by
    /// binary search: entries are sorted by kind first.
    func firstIndex(ofKindAtLeast kind: EntryKind) -> Int {
        var low = 0
        var high = storage.count
        while low < high {
            let middle = (low + high) / 2
            if storage[middle].key.kind < kind { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The most entries a document holds.
    static let maxEntries = 16_384
}
