/// A dictionary that holds its first key inline, for the maps a write transaction keeps per
/// profile, bar or document: an edit names one of each, and a `Dictionary` of one key costs an
/// allocation, a free and a hash of the key for every access (about a tenth of a durable edit's
/// instructions went to five such dictionaries). Past the first key it is a `Dictionary`, so a sync
/// apply of ten thousand profiles costs what it did.
///
/// The twin is `Dictionary` itself: `SmallMapDifferentialPropertyTests` runs the same random
/// inserts, updates and removals on both and compares every read.
struct SmallMap<Key: Hashable, Value> {
    /// One key held inline (the one stored while the slot was empty), or nil. Every other key is
    /// in `rest`; no key is in both.
    private var first: (key: Key, value: Value)?
    /// Every other key (an empty `Dictionary` allocates nothing).
    private var rest: [Key: Value] = [:]

    /// An empty map.
    init() {}

    /// The number of keys.
    var count: Int { (first == nil ? 0 : 1) + rest.count }

    /// Whether no key is stored.
    var isEmpty: Bool { first == nil && rest.isEmpty }

    /// The value of `key`; setting nil removes it.
    subscript(key: Key) -> Value? {
        get {
            if let first, first.key == key { return first.value }
            return rest.isEmpty ? nil : rest[key]
        }
        set {
            if let stored = first, stored.key == key {
                first = newValue.map { (key, $0) }
            } else if !rest.isEmpty, rest[key] != nil {
                rest[key] = newValue
            } else if let newValue {
                if first == nil { first = (key, newValue) } else { rest[key] = newValue }
            }
        }
    }

    /// The value of `key`, or `defaultValue` (stored first) when there is none, updated in place.
    subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[key] ?? defaultValue() }
        _modify {
            if let stored = first, stored.key == key {
                yield &first!.value
            } else if !rest.isEmpty, rest[key] != nil {
                yield &rest[key]!
            } else if first == nil {
                first = (key, defaultValue())
                yield &first!.value
            } else {
                yield &rest[key, default: defaultValue()]
            }
        }
    }

    /// Calls `body` with every key and value, in no particular order.
    func forEach(_ body: (Key, Value) throws -> Void) rethrows {
        if let first { try body(first.key, first.value) }
        for (key, value) in rest { try body(key, value) }
    }

    /// Every key, in no particular order.
    var keys: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        forEach { key, _ in keys.append(key) }
        return keys
    }
}

extension SmallMap where Key: Comparable {
    /// Calls `body` with every key and value in ascending key order; one key needs no sort (and
    /// no array).
    func forEachInKeyOrder(_ body: (Key, Value) throws -> Void) rethrows {
        if rest.isEmpty {
            if let first { try body(first.key, first.value) }
            return
        }
        var all = Array(rest)
        if let first { all.append(first) }
        all.sort { $0.key < $1.key }
        for (key, value) in all { try body(key, value) }
    }
}

extension SmallMap: Sendable where Key: Sendable, Value: Sendable {}
