import TabKeep
import ToolSupport

/// `tabkeep set`: fix a user's tab bar by hand.
enum SetCommand {
    static let order = Option(
        name: "order", placeholder: "a,b,c", help: "a whole new order, as a finished customization"
    ) { (text) throws(UsageError) in try Values.tabs(text, flag: "order") }
    static let move = Option(
        name: "move", placeholder: "TAB=INDEX", help: "move TAB to INDEX of the shown order", repeatable: true
    ) { (text) throws(UsageError) in try Values.tabNumber(text, flag: "move") }
    static let customizable = Option(
        name: "customizable", placeholder: "a,b", help: "the customizable subset of the tabs then shown"
    ) { (text) throws(UsageError) in try Values.tabs(text, flag: "customizable") }
    static let hide = Option(name: "hide", placeholder: "a,b", help: "hide these tabs") {
        (text) throws(UsageError) in try Values.tabs(text, flag: "hide")
    }
    static let unhide = Option(name: "unhide", placeholder: "a,b", help: "show these tabs again") {
        (text) throws(UsageError) in try Values.tabs(text, flag: "unhide")
    }
    static let select = Option(
        name: "select", placeholder: "TAB|more|none", help: "select a tab, More or nothing"
    ) {
        (text) throws(UsageError) -> Selection in
        switch text {
        case "more": return .more
        case "none": return .none
        default: return .tab(try Values.tab(text, flag: "select"))
        }
    }
    static let badge = Option(
        name: "badge", placeholder: "TAB=N", help: "set TAB's badge count (0 clears)", repeatable: true
    ) { (text) throws(UsageError) in
        let badge = try Values.tabNumber(text, flag: "badge")
        guard badge.value >= 0 else {
            throw UsageError("--badge: a count cannot be negative (use --badge-add)")
        }
        return badge
    }
    static let badgeAdd = Option(
        name: "badge-add", placeholder: "TAB=N", help: "add N (may be negative) to TAB's badge count",
        repeatable: true
    ) { (text) throws(UsageError) in try Values.tabNumber(text, flag: "badge-add") }
    static let badgeText = Option(
        name: "badge-text", placeholder: "TAB=TEXT", help: "set TAB's badge text (empty TEXT clears)",
        repeatable: true
    ) { (text) throws(UsageError) in try Values.pair(text, flag: "badge-text") }
    static let reset = Switch(name: "reset", help: "reset the bar to the catalog's defaults first")

    static let command = Command(
        name: "set",
        summary: "Change a profile's tab bar (creates the store if missing).",
        details: """
            --catalog registers the bar's catalog (LIST: tab ids, each optionally TAB:PLACEMENT with
            fixed, movable, default or optional). The catalog and the edits commit together or not
            at all. The edits apply in this order: --reset, --order (a whole new order, as a finished customization), --move TAB=INDEX
            (an index of the shown order; repeatable), --hide, --unhide, --customizable (the
            customizable subset of the tabs then shown), --select, --badge TAB=N (absolute; 0 clears), --badge-add TAB=N (N may
            be negative), --badge-text TAB=TEXT (empty TEXT clears). --move, --badge, --badge-add and
            --badge-text may be repeated. Prints the bar afterwards. --locking chooses the locking
            mode of a store this command creates (default: lmdb on Linux, per-transaction on Apple
            platforms, or TABKEEP_LOCKING); an existing store keeps its own, and naming the other
            one is an error.

            Example:
              tabkeep set ~/stores/app --profile alice --catalog home:fixed,inbox,search,settings,labs:optional
              tabkeep set ~/stores/app --profile alice --move settings=1 --select inbox --badge-add inbox=3
            """,
        syntax: CommandSyntax(
            positionals: [Flags.store],
            flags: [
                .required(Flags.profile), .optional(Flags.bar), .optional(Flags.catalog), .optional(order),
                .optional(move), .optional(customizable), .optional(hide), .optional(unhide),
                .optional(select),
                .optional(badge), .optional(badgeAdd), .optional(badgeText), .switch(reset),
                .optional(Flags.locking),
            ]),
        run: run)

    /// The edits in the order they apply.
    static func edits(_ arguments: ParsedArguments) -> [TabBarEdit] {
        var edits: [TabBarEdit] = []
        if arguments[Self.reset] { edits.append(.reset) }
        if let order = arguments[Self.order] { edits.append(.reorder(order)) }
        for move in arguments.all(Self.move) { edits.append(.move(move.tab, to: move.value)) }
        for tab in arguments[Self.hide] ?? [] { edits.append(.setHidden(tab, true)) }
        for tab in arguments[Self.unhide] ?? [] { edits.append(.setHidden(tab, false)) }
        if let subset = arguments[Self.customizable] { edits.append(.setCustomizable(subset)) }
        if let selection = arguments[Self.select] { edits.append(.select(selection)) }
        for badge in arguments.all(Self.badge) {
            edits.append(badge.value == 0 ? .clearBadge(badge.tab) : .setBadge(badge.tab, badge.value))
        }
        for badge in arguments.all(Self.badgeAdd) { edits.append(.addToBadge(badge.tab, badge.value)) }
        for text in arguments.all(Self.badgeText) {
            edits.append(.setBadgeText(text.tab, text.value.isEmpty ? nil : text.value))
        }
        return edits
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let profile = try arguments.required(Flags.profile)
        let bar = arguments[Flags.bar] ?? .main
        let catalog = arguments[Flags.catalog]
        let edits = edits(arguments)
        if edits.isEmpty && catalog == nil {
            throw UsageError("nothing to set: give --catalog or at least one edit")
        }
        let store = try Stores.creating(arguments.value(of: Flags.store), locking: arguments[Flags.locking])
        if let catalog {
            // One commit: a refused edit leaves the catalog unregistered too.
            try store.edit(profile, bar: bar, registering: catalog, edits)
        } else if !edits.isEmpty {
            if try store.catalog(for: bar) == nil && edits == [.reset] {
                try store.reset(profile, bar: bar)
            } else {
                try store.edit(profile, bar: bar, edits)
            }
        }
        print("profile \"\(profile)\", bar \"\(bar)\"")
        if try store.catalog(for: bar) != nil {
            for line in BarDrawing.lines(try store.layout(profile, bar: bar), maxVisible: 5) { print(line) }
        } else {
            print("  (no catalog registered for this bar; give --catalog to draw it)")
        }
        return 0
    }
}
