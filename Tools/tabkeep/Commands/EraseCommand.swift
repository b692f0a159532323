import TabKeep
import ToolSupport

/// `tabkeep erase`: forget a profile (or one bar of it).
enum EraseCommand {
    static let bar = Option(
        name: "bar", placeholder: "B", help: "reset only this bar instead of erasing every bar",
        parse: Values.bar)

    static let command = Command(
        name: "erase",
        summary: "Erase a profile, or reset one of its bars to the app's defaults.",
        details: """
            Without --bar, erases every bar of the profile; with --bar, resets that bar. The erase
            is permanent on this store the moment it commits and reaches other devices by sync;
            edits another device made that this store never saw survive it.

            Example:
              tabkeep erase ~/stores/app --profile alice
              tabkeep erase ~/stores/app --profile alice --bar settings
            """,
        syntax: CommandSyntax(positionals: [Flags.store], flags: [.required(Flags.profile), .optional(bar)]),
        run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let profile = try arguments.required(Flags.profile)
        let store = try Stores.existing(arguments.value(of: Flags.store))
        if let bar = arguments[Self.bar] {
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
