import TabKeep

/// `tabkeep show`: one profile's bar as the user sees it.
enum ShowCommand {
    static let spec = CommandSpec(
        name: "show", usage: "STORE --profile P [--bar B] [--catalog LIST] [--max-visible N] [--json]",
        summary: "Show a profile's tab bar as the user sees it.",
        details: """
            Resolves the stored document against the bar's registered catalog (or --catalog) and
            draws the bar: the visible items with their badges, More and what is under it, the
            selected tab between stars. --max-visible is the number of items that fit (default 5).
            --json prints one object:
              {"profile","bar","order","visible","more","customizable","hidden","selected","badges","badgeTexts"}

            Example:
              tabkeep show ~/stores/app --profile alice
              tabkeep show ~/stores/app --profile alice --json
            """,
        positionals: ["STORE"],
        flags: [
            FlagSpec(name: "profile", value: "P"), FlagSpec(name: "bar", value: "B"),
            FlagSpec(name: "catalog", value: "LIST"), FlagSpec(name: "max-visible", value: "N"),
            FlagSpec(name: "json"),
        ],
        run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let profile = try Values.profile(try arguments.required("profile"))
        let bar = try Values.bar(arguments.value("bar"))
        let catalog = try arguments.value("catalog").map { (text) throws(UsageError) in
            try Values.catalog(text)
        }
        let maxVisible = try Values.positiveInt(
            arguments.value("max-visible"), flag: "max-visible", default: 5)
        let store = try Stores.readOnly(arguments.positionals[0])
        let layout = try store.layout(profile, bar: bar, catalog: catalog)
        if arguments.has("json") {
            print(json(layout, profile: profile, bar: bar, maxVisible: maxVisible))
        } else {
            print("profile \"\(profile)\", bar \"\(bar)\"")
            for line in BarDrawing.lines(layout, maxVisible: maxVisible) { print(line) }
        }
        return 0
    }

    static func json(_ layout: Layout, profile: ProfileID, bar: BarID, maxVisible: Int) -> String {
        let (visible, more) = layout.split(maxVisible: maxVisible)
        let selected: String
        switch layout.selection {
        case .tab(let tab): selected = Output.json(tab.rawValue)
        case .more: selected = "\"more\""
        case .none: selected = "null"
        }
        let badges = layout.order.compactMap { tab in
            layout.badges[tab].map { "\(Output.json(tab.rawValue)):\($0)" }
        }
        let texts = layout.order.compactMap { tab in
            layout.badgeTexts[tab].map { "\(Output.json(tab.rawValue)):\(Output.json($0))" }
        }
        return "{\"profile\":\(Output.json(profile.rawValue)),\"bar\":\(Output.json(bar.rawValue)),"
            + "\"order\":\(Output.json(layout.order)),\"visible\":\(Output.json(visible)),"
            + "\"more\":\(Output.json(more)),\"customizable\":\(Output.json(layout.customizable)),"
            + "\"hidden\":\(Output.json(layout.hidden)),\"selected\":\(selected),"
            + "\"badges\":{\(badges.joined(separator: ","))},\"badgeTexts\":{\(texts.joined(separator: ","))}}"
    }
}
