import TabKeep
import ToolSupport

/// `tabkeep explain`: why a profile's bar looks the way it does — which device set each thing, when.
enum ExplainCommand {
    static let command = Command(
        name: "explain",
        summary: "Explain a profile's bar: which device moved, hid or badged each tab, and when.",
        details: """
            For support ("my tabs moved, I didn't do that"). Resolves the stored document against
            the bar's registered catalog (or --catalog) and prints one row per tab, shown tabs in
            order (#) then hidden ones (-): where its place comes from (moved by a device at a
            time; pinned, with no move of its own, where another tab's move needed neighbours; its
            catalog default, after its catalog predecessor; fixed), and its customizable and hidden
            flags with the same provenance. Then the selection, each badge as its parts (the reset
            it started from and every device's increments since), the clears (bar resets and
            erases: who, when, what they covered) and the tabs the catalog does not offer.
            Devices are replicas, named by the first 8 hex digits of their id; this store's own is
            "this device". Times are in the local time zone.
            --json prints the same as one object, times as ISO 8601 UTC:
              {"profile","bar","thisDevice","catalog","order","hidden","tabs","selection","clears","notInCatalog"}
            Exit 1 when the store holds nothing for the profile or bar, or no catalog is known.

            Example:
              tabkeep explain ~/stores/phone --profile alice
              tabkeep explain ~/stores/phone --profile alice --json
            """,
        syntax: CommandSyntax(
            positionals: [Flags.store],
            flags: [
                .required(Flags.profile), .optional(Flags.bar), .optional(Flags.catalog), .switch(Flags.json),
            ]),
        run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let profile = try arguments.required(Flags.profile)
        let bar = arguments[Flags.bar] ?? .main
        let store = try Stores.readOnly(arguments.value(of: Flags.store))
        guard let explanation = try store.explain(profile, bar: bar, catalog: arguments[Flags.catalog]) else {
            throw ToolError(message: try nothingStored(store, profile: profile, bar: bar))
        }
        if !explanation.notInCatalog.isEmpty {
            let tabs = explanation.notInCatalog.map(\.rawValue).joined(separator: ", ")
            Output.warning("the catalog does not offer stored tabs \(tabs): kept, not shown")
        }
        if arguments[Flags.json] {
            print(ExplainJSON.object(explanation).text)
        } else {
            for line in ExplainTable(explanation).lines() { print(line) }
        }
        return 0
    }

    /// Why there is nothing to explain: no such profile, or no such bar of it.
    static func nothingStored(_ store: TabKeepStore, profile: ProfileID, bar: BarID) throws -> String {
        let bars = try store.bars(of: profile)
        if bars.isEmpty { return "nothing is stored for profile \"\(profile)\" in this store" }
        let names = bars.map { "\"\($0)\"" }.joined(separator: ", ")
        return "nothing is stored for profile \"\(profile)\", bar \"\(bar)\" (its bars: \(names))"
    }
}
