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
    var random: SplitMix64

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
        random = SplitMix64(seed: UInt64(options.value("seed") ?? "1") ?? 1)
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
