/// One copy of the store (one device): 64 random bits, made once and never reused.
///
/// ```swift
/// let replica = ReplicaID.random()
/// let same = try ReplicaID(hex: replica.description)
/// ```
public struct ReplicaID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 64 bits.
    public let rawValue: UInt64

    /// Wraps 64 bits.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Parses exactly 16 lowercase hex digits, as `description` prints them.
    public init(hex: String) throws(IdentifierError) {
        var value: UInt64 = 0
        var count = 0
        for byte in hex.utf8 {
            count += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default:
                throw IdentifierError(field: "replica", value: hex, rule: "must be 16 lowercase hex digits")
            }
            if count > 16 { break }
            value = value << 4 | UInt64(digit)
        }
        guard count == 16 else {
            throw IdentifierError(field: "replica", value: hex, rule: "must be 16 lowercase hex digits")
        }
        self.rawValue = value
    }

    /// A fresh random id, never 0.
    public static func random() -> ReplicaID {
        var generator = SystemRandomNumberGenerator()
        while true {
            let value = generator.next()
            if value != 0 { return ReplicaID(rawValue: value) }
        }
    }

    /// 16 lowercase hex digits.
    public var description: String {
        let digits = String(rawValue, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Numeric order.
    public static func < (lhs: ReplicaID, rhs: ReplicaID) -> Bool { lhs.rawValue < rhs.rawValue }
}
