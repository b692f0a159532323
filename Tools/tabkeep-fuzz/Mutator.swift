/// Seeded byte-level mutations in the manner of libFuzzer's: flips, overwrites with edge values,
/// inserts, erases, duplicated runs and splices between corpus inputs.
struct Mutator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(max(bound, 1)))
    }

    /// One corpus input with one to four mutations.
    mutating func mutate(_ corpus: [[UInt8]]) -> [UInt8] {
        var bytes = corpus[next(corpus.count)]
        for _ in 0...next(4) {
            let position = next(bytes.count + 1)
            switch next(7) {
            case 0 where !bytes.isEmpty:
                bytes[min(position, bytes.count - 1)] ^= UInt8(1 << next(8))
            case 1 where !bytes.isEmpty:
                let edges: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF, 0x22, 0x5C, 0x0A, 0x7B, 0x7D]
                bytes[min(position, bytes.count - 1)] = edges[next(edges.count)]
            case 2:
                bytes.insert(contentsOf: (0...next(8)).map { _ in UInt8(next(256)) }, at: position)
            case 3 where !bytes.isEmpty:
                let end = min(bytes.count, position + 1 + next(16))
                bytes.removeSubrange(min(position, bytes.count - 1)..<end)
            case 4 where position < bytes.count:
                let end = min(bytes.count, position + 1 + next(32))
                bytes.insert(contentsOf: bytes[position..<end], at: next(bytes.count + 1))
            case 5:
                let other = corpus[next(corpus.count)]
                let from = next(other.count + 1)
                bytes = Array(bytes[..<position]) + other[from...]
            default:
                bytes = Array(bytes.prefix(position))
            }
        }
        return bytes
    }
}
