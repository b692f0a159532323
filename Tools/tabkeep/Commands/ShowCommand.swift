import TabKeep
import ToolSupport

/// `tabkeep show`: one profile's bar as the user sees it.
enum ShowCommand {
    static let maxVisible = Option(
        name: "max-visible", placeholder: "N", help: "how many items fit on the bar (default 5)"
    ) { (text) throws(UsageError) in try Values.positiveInt(text, flag: "max-visible") }

    static let command = Command(
        name: "show",
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
        syntax: CommandSyntax(
            positionals: [Flags.store],
            flags: [
                .required(Flags.profile), .optional(Flags.bar), .optional(Flags.catalog),
                .optional(maxVisible),
                .switch(Flags.json),
            ]),
        run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let profile = try arguments.required(Flags.profile)
        let bar = arguments[Flags.bar] ?? .main
        let maxVisible = arguments[Self.maxVisible] ?? 5
        let store = try Stores.readOnly(arguments.value(of: Flags.store))
        let layout = try store.layout(profile, bar: bar, catalog: arguments[Flags.catalog])
        if arguments[Flags.json] {
            print(json(layout, profile: profile, bar: bar, maxVisible: maxVisible).text)
        } else {
            print("profile \"\(profile)\", bar \"\(bar)\"")
            for line in BarDrawing.lines(layout, maxVisible: maxVisible) { print(line) }
        }
        return 0
    }

    static func json(_ layout: Layout, profile: ProfileID, bar: BarID, maxVisible: Int) -> JSON {
        let (visible, more) = layout.split(maxVisible: maxVisible)
        let selected: JSON
        switch layout.selection {
        case .tab(let tab): selected = .string(tab.rawValue)
        case .more: selected = .string("more")
        case .none: selected = .null
        }
        // A stored layout builds the order on each read: read it once.
        let order = layout.order
        let badges = order.compactMap { tab in
            layout.badge(for: tab).map { (tab.rawValue, JSON.integer($0)) }
        }
        let texts = order.compactMap { tab in
            layout.badgeText(for: tab).map { (tab.rawValue, JSON.string($0)) }
        }
        return .object([
            ("profile", .string(profile.rawValue)), ("bar", .string(bar.rawValue)),
            ("order", .tabs(order)),
            ("visible", .tabs(visible)), ("more", .tabs(more)), ("customizable", .tabs(layout.customizable)),
            ("hidden", .tabs(layout.hidden)), ("selected", selected), ("badges", .object(badges)),
            ("badgeTexts", .object(texts)),
        ])
    }
}
