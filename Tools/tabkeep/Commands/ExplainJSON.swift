import Foundation
import TabKeep

/// `tabkeep explain --json`: one object, times as ISO 8601 UTC with milliseconds.
///
///     {"profile","bar","thisDevice","catalog","order","hidden","tabs","selection","clears","notInCatalog"}
///
/// A provenance is {"replica","thisDevice","at","stamp","sequence","writtenAs"}; "at" is null for a
/// pin's stamp, which carries no time.
enum ExplainJSON {
    static func object(_ explanation: BarExplanation) -> String {
        let writer = Writer(thisDevice: explanation.thisDevice)
        return object([
            ("profile", Output.json(explanation.profile.rawValue)),
            ("bar", Output.json(explanation.bar.rawValue)),
            ("thisDevice", Output.json(explanation.thisDevice.description)),
            ("catalog", Output.json(explanation.catalog.tabs.map(\.id))),
            ("order", Output.json(explanation.layout.order)),
            ("hidden", Output.json(explanation.layout.hidden)),
            ("tabs", array(explanation.tabs.map(writer.tab))),
            ("selection", writer.selection(explanation.selection)),
            ("clears", array(explanation.clears.map(writer.clear))),
            ("notInCatalog", Output.json(explanation.notInCatalog)),
        ])
    }

    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { "\(Output.json($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    static func array(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }

    static func optional(_ tab: TabID?) -> String { tab.map { Output.json($0.rawValue) } ?? "null" }

    /// Per-replica counts keyed by the replica's 16 hex digits.
    static func byReplica<Number: BinaryInteger>(_ values: [ReplicaID: Number]) -> String {
        object(values.keys.sorted().map { ($0.description, "\(values[$0]!)") })
    }

    struct Writer {
        let thisDevice: ReplicaID
        let formatter: ISO8601DateFormatter = {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter
        }()

        func provenance(_ provenance: Provenance) -> String {
            object([
                ("replica", Output.json(provenance.origin.description)),
                ("thisDevice", "\(provenance.isThisDevice)"),
                ("at", provenance.hasTime ? Output.json(formatter.string(from: provenance.date)) : "null"),
                ("stamp", Output.json(provenance.stamp.description)),
                ("sequence", "\(provenance.dot.sequence)"),
                ("writtenAs", optional(provenance.writtenAs)),
            ])
        }

        func tab(_ tab: TabExplanation) -> String {
            object([
                ("tab", Output.json(tab.tab.rawValue)), ("index", tab.index.map { "\($0)" } ?? "null"),
                ("formerIDs", Output.json(tab.formerIDs)), ("place", place(tab.place)),
                ("customizable", flag(tab.customizable)), ("hidden", flag(tab.hidden)),
                ("badge", tab.badge.map(badge) ?? "null"),
                (
                    "badgeText",
                    tab.badgeText.map {
                        object([("text", Output.json($0.text)), ("by", provenance($0.provenance))])
                    } ?? "null"
                ),
            ])
        }

        func place(_ place: TabExplanation.Place) -> String {
            switch place {
            case .fixed(let index):
                return object([("source", "\"fixed\""), ("catalogIndex", "\(index)")])
            case .catalogDefault(let after):
                return object([("source", "\"catalogDefault\""), ("after", optional(after))])
            case .moved(let by, let slot):
                let slotJSON = slot.map {
                    object([("after", optional($0.after)), ("next", optional($0.next))])
                }
                return object([("source", "\"moved\""), ("by", provenance(by)), ("slot", slotJSON ?? "null")])
            case .pinned(let by):
                return object([("source", "\"pinned\""), ("by", provenance(by))])
            }
        }

        func flag(_ flag: TabExplanation.Flag) -> String {
            switch flag.source {
            case .catalogDefault:
                return object([("value", "\(flag.value)"), ("source", "\"catalogDefault\"")])
            case .edited(let by):
                return object([("value", "\(flag.value)"), ("source", "\"edited\""), ("by", provenance(by))])
            case .placement(let placement):
                return object([
                    ("value", "\(flag.value)"), ("source", "\"placement\""),
                    ("placement", Output.json(placement.rawValue)),
                ])
            }
        }

        func badge(_ badge: BadgeExplanation) -> String {
            let baseline: String
            switch badge.baseline {
            case .none: baseline = "none"
            case .reset: baseline = "reset"
            case .clear: baseline = "clear"
            }
            let reset = badge.reset.map {
                object([
                    ("count", "\($0.count)"), ("seen", byReplica($0.seen)), ("by", provenance($0.provenance)),
                ])
            }
            let increments = badge.increments.map {
                object([
                    ("replica", Output.json($0.replica.description)),
                    ("thisDevice", "\($0.replica == thisDevice)"), ("total", "\($0.total)"),
                    ("baseline", "\($0.baseline)"), ("counted", "\($0.counted)"),
                    ("by", provenance($0.provenance)),
                ])
            }
            return object([
                ("count", "\(badge.count)"), ("baseline", Output.json(baseline)), ("reset", reset ?? "null"),
                ("increments", array(increments)),
            ])
        }

        func selection(_ selection: SelectionExplanation) -> String {
            object([
                ("stored", value(selection.stored)), ("shown", value(selection.shown)),
                ("by", selection.provenance.map(provenance) ?? "null"),
            ])
        }

        func value(_ selection: Selection) -> String {
            switch selection {
            case .tab(let tab): Output.json(tab.rawValue)
            case .more: "\"more\""
            case .none: "null"
            }
        }

        func clear(_ clear: ClearExplanation) -> String {
            let totals = clear.badgeTotals.keys.sorted().map {
                ($0.rawValue, byReplica(clear.badgeTotals[$0]!))
            }
            let covered = Dictionary(
                uniqueKeysWithValues: clear.covered.replicas.map { ($0, clear.covered[$0]) })
            return object([
                ("by", provenance(clear.provenance)), ("covered", byReplica(covered)),
                ("removedTabs", Output.json(clear.removedTabs)),
                ("removedSelection", "\(clear.removedSelection)"), ("badgeTotals", object(totals)),
            ])
        }
    }
}
