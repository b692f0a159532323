import TabKeep

/// `tabkeep erase`: forget a profile (or one bar of it).
enum EraseCommand {
    static let spec = CommandSpec(
        name: "erase", usage: "STORE --profile P [--bar B]",
        summary: "Erase a profile, or reset one of its bars to the app's defaults.",
        details: """
            Without --bar, erases every bar of the profile; with --bar, resets that bar. The erase
            is permanent on this store the moment it commits and reaches other devices by sync;
            edits another device made that this store never saw survive it.

            Example:
              tabkeep erase ~/stores/app --profile alice
              tabkeep erase ~/stores/app --profile alice --bar settings
            """,
        positionals: ["STORE"],
        flags: [FlagSpec(name: "profile", value: "P"), FlagSpec(name: "bar", value: "B")],
        run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let profile = try Values.profile(try arguments.required("profile"))
        let store = try Stores.existing(arguments.positionals[0])
        if let barText = arguments.value("bar") {
            let bar = try Values.bar(barText)
            guard try store.bars(of: profile).contains(bar) else {
                throw ToolError(message: "profile \"\(profile)\" has no stored bar \"\(bar)\"")
            }
            try store.reset(profile, bar: bar)
            print("reset bar \"\(bar)\" of profile \"\(profile)\"")
        } else {
            // Lists and clears the bars in one transaction: every bar, or none.
            let erased = try store.erase(profile)
            guard !erased.isEmpty else { throw ToolError(message: "no profile \"\(profile)\" in the store") }
            print("erased profile \"\(profile)\" (bars: \(erased.map(\.rawValue).joined(separator: ", ")))")
        }
        return 0
    }
}
