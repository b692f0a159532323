/// For each replica, the highest sequence seen from it.
///
/// ```swift
/// var vector = VersionVector()
/// vector[ReplicaID(rawValue: 1)] = 4
/// vector.contains(Dot(replica: ReplicaID(rawValue: 1), sequence: 3))  // true
/// ```
public struct VersionVector: Hashable, Sendable, CustomStringConvertible {
    /// Never holds a zero: absent means zero, so equal vectors are equal values.
    var storage: [ReplicaID: UInt64]

    /// The empty vector.
    public init() {
        storage = [:]
    }

    /// A vector from explicit entries (zeros are dropped).
    public init(_ entries: [ReplicaID: UInt64]) {
        storage = entries.filter { $0.value != 0 }
    }

    /// The highest sequence seen from `replica`; 0 when absent.
    public subscript(replica: ReplicaID) -> UInt64 {
        get { storage[replica] ?? 0 }
        set { storage[replica] = newValue == 0 ? nil : newValue }
    }

    /// Whether `dot` is covered: `dot.sequence <= self[dot.replica]`.
    public func contains(_ dot: Dot) -> Bool {
        dot.sequence <= self[dot.replica]
    }

    /// Pointwise max.
    public mutating func merge(_ other: VersionVector) {
        for (replica, sequence) in other.storage where sequence > self[replica] {
            storage[replica] = sequence
        }
    }

    /// Adds a dot (raising its replica's entry if needed).
    mutating func add(_ dot: Dot) {
        if dot.sequence > self[dot.replica] { storage[dot.replica] = dot.sequence }
    }

    /// The replicas with a nonzero entry, sorted.
    public var replicas: [ReplicaID] { storage.keys.sorted() }

    /// Whether every entry is zero.
    public var isEmpty: Bool { storage.isEmpty }

    /// "[replica:sequence, …]" in replica order.
    public var description: String {
        "[" + replicas.map { "\($0):\(storage[$0]!)" }.joined(separator: ", ") + "]"
    }
}
