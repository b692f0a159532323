import LMDBKit
import TabKeep

/// `edit`: edits forever, acknowledging each committed edit with `ack <profile> <value>`.
///
/// Each profile's badge goes up by one per edit, starting from what the store holds, so the
/// parent knows every value a profile must have reached.
struct EditLoop {
    let store: String
    let durability: Durability
    let profiles: [ProfileID]
    var random: SplitMix

    init(store: String, options: Options) throws {
        self.store = store
        let name = options.value("durability") ?? "full"
        guard let durability = Durability(rawValue: name) else {
            throw StressError("unknown durability \(name)")
        }
        self.durability = durability
        let count = Int(options.value("profiles") ?? "4") ?? 4
        let prefix = options.value("prefix") ?? ""
        profiles = try (0..<count).map { try ProfileID("\(prefix)p\($0)") }
        random = SplitMix(seed: UInt64(options.value("seed") ?? "1") ?? 1)
    }

    mutating func run() throws -> Int32 {
        let store = try TabKeepStore(path: store, options: .init(durability: durability))
        var values: [ProfileID: Int] = [:]
        for profile in profiles {
            guard let badge = try store.document(profile).map(Fixture.badge) ?? 0 else {
                throw StressError("profile \(profile) starts half-applied")
            }
            values[profile] = badge
        }
        Line.out("ready")
        while true {
            let profile = profiles[Int(random.next() % UInt64(profiles.count))]
            let value = values[profile]! + 1
            try store.edit(profile, catalog: Fixture.catalog, Fixture.edits(setting: value))
            values[profile] = value
            Line.out("ack \(profile) \(value)")
        }
    }
}

/// A small, seedable generator (SplitMix64), so a failing run can be replayed.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
