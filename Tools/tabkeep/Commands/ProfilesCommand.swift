import TabKeep
import ToolSupport

/// `tabkeep profiles`: who has a stored arrangement.
enum ProfilesCommand {
    static let command = Command(
        name: "profiles",
        summary: "List the profiles in a store and their bars.",
        details: """
            One line per profile with a stored arrangement: the profile, then its bars. Erased
            profiles are not listed. --json prints [{"profile":P,"bars":[B,…]},…].

            Example:
              tabkeep profiles ~/stores/app
            """,
        syntax: CommandSyntax(positionals: [Flags.store], flags: [.switch(Flags.json)]), run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let store = try Stores.readOnly(arguments.value(of: Flags.store))
        // The store lists only bars that hold something: erased and reset ones are left out.
        let items = try store.profiles().map { ($0, try store.bars(of: $0)) }
        if arguments[Flags.json] {
            let objects = items.map { profile, bars -> JSON in
                .object([("profile", .string(profile.rawValue)), ("bars", .strings(bars.map(\.rawValue)))])
            }
            print(JSON.array(objects).text)
        } else {
            for (profile, bars) in items {
                print("\(profile)\t\(bars.map(\.rawValue).joined(separator: ","))")
            }
        }
        return 0
    }
}
