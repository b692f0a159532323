import Foundation
import TabKeep

/// `tabkeep explain` as text: a table of tabs, then the selection, badges, clears and what the
/// catalog lacks. Devices are short replica ids, this store's own "this device"; local times.
struct ExplainTable {
    let explanation: BarExplanation
    private let names: [ReplicaID: String]
    private let formatter: DateFormatter

    init(_ explanation: BarExplanation) {
        self.explanation = explanation
        let replicas = explanation.replicas
        let shorts = replicas.map { String($0.description.prefix(8)) }
        let unique = Set(shorts).count == shorts.count
        var names: [ReplicaID: String] = [:]
        for (replica, short) in zip(replicas, shorts) {
            names[replica] =
                replica == explanation.thisDevice ? "this device" : unique ? short : replica.description
        }
        self.names = names
        formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
    }

    func lines() -> [String] {
        let zone = TimeZone.current
        let offset = zone.secondsFromGMT()
        let sign = offset < 0 ? "-" : "+"
        let hours = abs(offset) / 3600
        let minutes = abs(offset) % 3600 / 60
        var lines = [
            "profile \"\(explanation.profile)\", bar \"\(explanation.bar)\"; "
                + "times in \(zone.identifier) (UTC\(sign)\(two(hours)):\(two(minutes)))",
            "devices: "
                + explanation.replicas.map { replica in
                    replica == explanation.thisDevice ? "\(replica) (this device)" : replica.description
                }.joined(separator: ", "),
            "",
        ]
        lines += table()
        lines.append("")
        lines.append("selected: " + selection())
        lines += badges()
        lines += clears()
        if !explanation.notInCatalog.isEmpty {
            lines.append(
                "not in this catalog (kept, not shown): "
                    + explanation.notInCatalog.map(\.rawValue).joined(separator: ", "))
        }
        return lines
    }

    private func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }

    private func table() -> [String] {
        var rows = [["#", "tab", "place", "customizable", "hidden"]]
        for tab in explanation.tabs {
            var name = tab.tab.rawValue
            if !tab.formerIDs.isEmpty {
                name += " (was \(tab.formerIDs.map(\.rawValue).joined(separator: ", ")))"
            }
            rows.append([
                tab.index.map { String($0 + 1) } ?? "-", name, place(tab.place), flag(tab.customizable),
                flag(tab.hidden),
            ])
        }
        var widths = [Int](repeating: 0, count: 5)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        return rows.map { row in
            var line = "  " + String(repeating: " ", count: widths[0] - row[0].count) + row[0]
            for column in 1..<row.count {
                let padding = column == row.count - 1 ? 0 : widths[column] - row[column].count
                line += "  " + row[column] + String(repeating: " ", count: padding)
            }
            return line
        }
    }

    /// "by D, TIME" (pins have no time of their own), plus the old id a rename reads through.
    private func by(_ provenance: Provenance, time: Bool = true) -> String {
        var text = "by \(names[provenance.origin] ?? provenance.origin.description)"
        if time && provenance.hasTime { text += ", " + formatter.string(from: provenance.date) }
        if let old = provenance.writtenAs { text += ", as \"\(old)\"" }
        return text
    }

    private func place(_ place: TabExplanation.Place) -> String {
        switch place {
        case .fixed(let index):
            return "fixed (catalog slot \(index + 1))"
        case .catalogDefault(let after):
            return "catalog default, " + (after.map { "in its slot after \($0)'s" } ?? "in the first slot")
        case .moved(let provenance, let slot):
            var text = "moved " + by(provenance)
            if let slot {
                text += ", to " + (slot.after.map { "after \($0)'s slot" } ?? "the front")
            }
            return text
        case .pinned(let provenance):
            return "pinned (no move) " + by(provenance, time: false)
        }
    }

    private func flag(_ flag: TabExplanation.Flag) -> String {
        let value = flag.value ? "yes" : "no"
        switch flag.source {
        case .catalogDefault: return "\(value) (catalog default)"
        case .edited(let provenance): return "\(value), set " + by(provenance)
        case .placement(let placement): return "\(value) (\(placement.rawValue) tab)"
        }
    }

    private func selection() -> String {
        let shown: String
        switch explanation.selection.shown {
        case .tab(let tab): shown = tab.rawValue
        case .more: shown = "More"
        case .none: shown = "nothing"
        }
        guard let provenance = explanation.selection.provenance else {
            return "\(shown) (no selection stored)"
        }
        var text = "\(shown), " + by(provenance)
        if case .tab(let stored) = explanation.selection.stored, explanation.selection.shown != .tab(stored) {
            text += " (\(stored) is stored; it is not shown)"
        }
        return text
    }

    private func badges() -> [String] {
        var lines: [String] = []
        for tab in explanation.tabs {
            if let badge = tab.badge {
                var parts: [String] = []
                if let reset = badge.reset {
                    parts.append("set to \(reset.count) " + by(reset.provenance))
                }
                for increment in badge.increments {
                    let sign = increment.counted < 0 ? "-" : "+"
                    var detail = "total \(increment.total)"
                    switch badge.baseline {
                    case .reset: detail += "; the set had counted \(increment.baseline) of it"
                    case .clear: detail += "; the clear had covered \(increment.baseline) of it"
                    case .none: break
                    }
                    parts.append(
                        "\(sign) \(increment.counted.magnitude) " + by(increment.provenance) + " (\(detail))")
                }
                let head = "  \(tab.tab): \(badge.count) = "
                lines.append(head + (parts.first ?? "0"))
                let indent = String(repeating: " ", count: head.count - 2)
                for part in parts.dropFirst() { lines.append(indent + part) }
            }
            if let text = tab.badgeText {
                lines.append("  \(tab.tab): text \"\(text.text)\" " + by(text.provenance))
            }
        }
        return ["badges:" + (lines.isEmpty ? " none" : "")] + lines
    }

    private func clears() -> [String] {
        guard !explanation.clears.isEmpty else { return ["cleared: never"] }
        return explanation.clears.map { clear in
            let covered = clear.covered.replicas.map {
                "\(names[$0] ?? $0.description) up to \(clear.covered[$0])"
            }
            var text = "cleared " + by(clear.provenance) + "; it had seen " + covered.joined(separator: ", ")
            var removed = clear.removedTabs.map(\.rawValue)
            if clear.removedSelection { removed.append("the selection") }
            if !removed.isEmpty { text += "; removed what it saw of " + removed.joined(separator: ", ") }
            return text
        }
    }
}
