import TabKeep

/// A tab bar drawn as text, the way a person sees it on the phone.
enum BarDrawing {
    /// The lines of `layout`'s bar with `maxVisible` items, indented by two spaces.
    ///
    ///     | home | *inbox (3)* | search | library | More |
    ///       More: settings, help "new"
    ///       hidden: labs
    static func lines(_ layout: Layout, maxVisible: Int) -> [String] {
        let (visible, more) = layout.split(maxVisible: maxVisible)
        func item(_ tab: TabID) -> String {
            var text = tab.rawValue
            if let count = layout.badge(for: tab) { text += " (\(count))" }
            if let badge = layout.badgeText(for: tab) { text += " \"\(badge)\"" }
            return layout.selection == .tab(tab) ? "*\(text)*" : text
        }
        var items = visible.map(item)
        if !more.isEmpty { items.append(layout.selection == .more ? "*More*" : "More") }
        var lines = [items.isEmpty ? "  (no tabs)" : "  | " + items.joined(separator: " | ") + " |"]
        if !more.isEmpty { lines.append("    More: " + more.map(item).joined(separator: ", ")) }
        let hidden = layout.hidden
        if !hidden.isEmpty {
            lines.append("    hidden: " + hidden.map(\.rawValue).joined(separator: ", "))
        }
        let customizable = layout.customizable
        let fixed = layout.order.filter { !customizable.contains($0) }
        if !fixed.isEmpty {
            lines.append("    not customizable: " + fixed.map(\.rawValue).joined(separator: ", "))
        }
        switch layout.selection {
        case .tab(let tab): lines.append("    selected: \(tab)\(more.contains(tab) ? " (under More)" : "")")
        case .more: lines.append("    selected: More")
        case .none: lines.append("    selected: nothing")
        }
        return lines
    }
}
