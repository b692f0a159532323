/// For each replica, the highest sequence seen from it.
///
/// ```swift
/// var vector = VersionVector()
/// vector[ReplicaID(rawValue: 1)] = 4
/// vector.contains(Dot(replica: ReplicaID(rawValue: 1), sequence: 3))  // true
/// ```
public struct VersionVector: Hashable, Sendable, CustomStringConvertible {
    /// Sorted by replica, one element per replica, never a zero sequence: absent means zero, so
    /// equal vectors are equal values. A sorted array rather than a dictionary: vectors hold a few
    /// replicas, and sync reads and builds one per profile (a dictionary per vector was a fifth of
    /// a bulk sync apply's instructions under callgrind).
    package private(set) var storage: [Element]

    /// One replica's entry.
    package struct Element: Hashable, Sendable {
        /// The replica.
        package var replica: ReplicaID
        /// The highest sequence seen from it (never 0).
        package var sequence: UInt64
    }

    /// The empty vector.
    public init() {
        storage = []
    }

    /// A vector from explicit entries (zeros are dropped).
    public init(_ entries: [ReplicaID: UInt64]) {
        storage = entries.filter { $0.value != 0 }.map { Element(replica: $0.key, sequence: $0.value) }
        storage.sort { $0.replica < $1.replica }
    }

    /// Makes room for `count` replicas.
    mutating func reserveCapacity(_ count: Int) { storage.reserveCapacity(count) }

    /// The number of replicas with a nonzero entry.
    var count: Int { storage.count }

    /// Where `replica` is or would be inserted.
    private func index(of replica: ReplicaID) -> Int {
        var low = 0
        var high = storage.count
        while low < high {
            let middle = (low + high) / 2
            if storage[middle].replica < replica { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The highest sequence seen from `replica`; 0 when absent.
    public subscript(replica: ReplicaID) -> UInt64 {
        get {
            let index = index(of: replica)
            return index < storage.count && storage[index].replica == replica ? storage[index].sequence : 0
        }
        set {
            let index = index(of: replica)
            let present = index < storage.count && storage[index].replica == replica
            if newValue == 0 {
                if present { storage.remove(at: index) }
            } else if present {
                storage[index].sequence = newValue
            } else {
                storage.insert(Element(replica: replica, sequence: newValue), at: index)
            }
        }
    }

    /// Adds `replica`'s entry past every entry so far (a decoder reading replicas in strictly
    /// increasing order); returns false, changing nothing, when it is not past them or is zero.
    package mutating func appendInOrder(_ replica: ReplicaID, _ sequence: UInt64) -> Bool {
        guard sequence != 0, storage.last.map({ $0.replica < replica }) ?? true else { return false }
        storage.append(Element(replica: replica, sequence: sequence))
        return true
    }

    /// Whether `dot` is covered: `dot.sequence <= self[dot.replica]`.
    public func contains(_ dot: Dot) -> Bool {
        dot.sequence <= self[dot.replica]
    }

    /// Whether this vector is at least `other` for every replica (it has seen all `other` has).
    package func covers(_ other: VersionVector) -> Bool {
        var mine = 0
        for element in other.storage {
            while mine < storage.count && storage[mine].replica < element.replica { mine += 1 }
            guard mine < storage.count, storage[mine].replica == element.replica,
                storage[mine].sequence >= element.sequence
            else { return false }
            mine += 1
        }
        return true
    }

    /// Pointwise max.
    public mutating func merge(_ other: VersionVector) {
        if other.storage.isEmpty { return }
        if storage.isEmpty {
            storage = other.storage
            return
        }
        var merged: [Element] = []
        merged.reserveCapacity(storage.count + other.storage.count)
        var mine = 0
        var theirs = 0
        while mine < storage.count || theirs < other.storage.count {
            if theirs == other.storage.count
                || (mine < storage.count && storage[mine].replica < other.storage[theirs].replica)
            {
                merged.append(storage[mine])
                mine += 1
            } else if mine == storage.count || other.storage[theirs].replica < storage[mine].replica {
                merged.append(other.storage[theirs])
                theirs += 1
            } else {
                merged.append(
                    Element(
                        replica: storage[mine].replica,
                        sequence: max(storage[mine].sequence, other.storage[theirs].sequence)))
                mine += 1
                theirs += 1
            }
        }
        storage = merged
    }

    /// Adds a dot (raising its replica's entry if needed).
    mutating func add(_ dot: Dot) {
        if dot.sequence > self[dot.replica] { self[dot.replica] = dot.sequence }
    }

    /// The replicas with a nonzero entry, sorted.
    public var replicas: [ReplicaID] { storage.map(\.replica) }

    /// Whether every entry is zero.
    public var isEmpty: Bool { storage.isEmpty }

    /// "[replica:sequence, …]" in replica order.
    public var description: String {
        "[" + storage.map { "\($0.replica):\($0.sequence)" }.joined(separator: ", ") + "]"
    }
}
