import TabKeep

/// `tabkeep profiles`: who has a stored arrangement.
enum ProfilesCommand {
    static let spec = CommandSpec(
        name: "profiles", usage: "STORE [--json]",
        summary: "List the profiles in a store and their bars.",
        details: """
            One line per profile with a stored arrangement: the profile, then its bars. Erased
            profiles are not listed. --json prints [{"profile":P,"bars":[B,…]},…].

            Example:
              tabkeep profiles ~/stores/app
            """,
        positionals: ["STORE"], flags: [FlagSpec(name: "json")], run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let store = try Stores.readOnly(arguments.positionals[0])
        // The store lists only bars that hold something: erased and reset ones are left out.
        let items = try store.profiles().map { ($0, try store.bars(of: $0)) }
        if arguments.has("json") {
            let objects = items.map { profile, bars in
                "{\"profile\":\(Output.json(profile.rawValue)),\"bars\":["
                    + bars.map { Output.json($0.rawValue) }.joined(separator: ",") + "]}"
            }
            print("[" + objects.joined(separator: ",") + "]")
        } else {
            for (profile, bars) in items {
                print("\(profile)\t\(bars.map(\.rawValue).joined(separator: ","))")
            }
        }
        return 0
    }
}
