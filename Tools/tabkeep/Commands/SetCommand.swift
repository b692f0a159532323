import TabKeep

/// `tabkeep set`: fix a user's tab bar by hand.
enum SetCommand {
    static let spec = CommandSpec(
        name: "set",
        usage: "STORE --profile P [--bar B] [--catalog LIST] [--order a,b,c] [--move TAB=INDEX] "
            + "[--customizable a,b] [--hide a,b] [--unhide a,b] [--select TAB|more|none] [--badge TAB=N] "
            + "[--badge-add TAB=N] [--badge-text TAB=TEXT] [--reset] [--locking lmdb|per-transaction]",
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
        positionals: ["STORE"],
        flags: [
            FlagSpec(name: "profile", value: "P"), FlagSpec(name: "bar", value: "B"),
            FlagSpec(name: "catalog", value: "LIST"), FlagSpec(name: "order", value: "a,b,c"),
            FlagSpec(name: "move", value: "TAB=INDEX", repeatable: true),
            FlagSpec(name: "customizable", value: "a,b"), FlagSpec(name: "hide", value: "a,b"),
            FlagSpec(name: "unhide", value: "a,b"), FlagSpec(name: "select", value: "TAB|more|none"),
            FlagSpec(name: "badge", value: "TAB=N", repeatable: true),
            FlagSpec(name: "badge-add", value: "TAB=N", repeatable: true),
            FlagSpec(name: "badge-text", value: "TAB=TEXT", repeatable: true), FlagSpec(name: "reset"),
            FlagSpec(name: "locking", value: "lmdb|per-transaction"),
        ],
        run: run)

    static func edits(_ arguments: ParsedArguments) throws(UsageError) -> [TabBarEdit] {
        var edits: [TabBarEdit] = []
        if arguments.has("reset") { edits.append(.reset) }
        if let order = arguments.value("order") {
            edits.append(.reorder(try Values.tabs(order, flag: "order")))
        }
        for move in arguments.all("move") {
            let (tab, index) = try Values.tabNumber(move, flag: "move")
            edits.append(.move(tab, to: index))
        }
        for tab in try arguments.value("hide").map({ (text) throws(UsageError) in
            try Values.tabs(text, flag: "hide")
        })
            ?? []
        {
            edits.append(.setHidden(tab, true))
        }
        for tab in try arguments.value("unhide").map({ (text) throws(UsageError) in
            try Values.tabs(text, flag: "unhide")
        }) ?? [] {
            edits.append(.setHidden(tab, false))
        }
        if let subset = arguments.value("customizable") {
            edits.append(.setCustomizable(try Values.tabs(subset, flag: "customizable")))
        }
        if let select = arguments.value("select") {
            switch select {
            case "more": edits.append(.select(.more))
            case "none": edits.append(.select(.none))
            default: edits.append(.select(.tab(try Values.tab(select, flag: "select"))))
            }
        }
        for badge in arguments.all("badge") {
            let (tab, count) = try Values.tabNumber(badge, flag: "badge")
            guard count >= 0 else {
                throw UsageError(message: "--badge: a count cannot be negative (use --badge-add)")
            }
            edits.append(count == 0 ? .clearBadge(tab) : .setBadge(tab, count))
        }
        for badge in arguments.all("badge-add") {
            let (tab, delta) = try Values.tabNumber(badge, flag: "badge-add")
            edits.append(.addToBadge(tab, delta))
        }
        for text in arguments.all("badge-text") {
            let (tab, value) = try Values.pair(text, flag: "badge-text")
            edits.append(.setBadgeText(tab, value.isEmpty ? nil : value))
        }
        return edits
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let profile = try Values.profile(try arguments.required("profile"))
        let bar = try Values.bar(arguments.value("bar"))
        let catalog = try arguments.value("catalog").map { (text) throws(UsageError) in
            try Values.catalog(text)
        }
        let edits = try edits(arguments)
        if edits.isEmpty && catalog == nil {
            throw UsageError(message: "nothing to set: give --catalog or at least one edit")
        }
        let store = try Stores.creating(
            arguments.positionals[0], locking: try Values.locking(arguments.value("locking")))
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
