import Foundation
import TabKeep
import ToolSupport

/// `tabkeep explain --json`: one object, times as ISO 8601 UTC with milliseconds.
///
///     {"profile","bar","thisDevice","catalog","order","hidden","tabs","selection","clears","notInCatalog"}
///
/// A provenance is {"replica","thisDevice","at","stamp","sequence","writtenAs"}; "at" is null for a
/// pin's stamp, which carries no time.
enum ExplainJSON {
    static func object(_ explanation: BarExplanation) -> JSON {
        let writer = Writer(thisDevice: explanation.thisDevice)
        return .object([
            ("profile", .string(explanation.profile.rawValue)),
            ("bar", .string(explanation.bar.rawValue)),
            ("thisDevice", .string(explanation.thisDevice.description)),
            ("catalog", .tabs(explanation.catalog.tabs.map(\.id))),
            ("order", .tabs(explanation.layout.order)),
            ("hidden", .tabs(explanation.layout.hidden)),
            ("tabs", .array(explanation.tabs.map(writer.tab))),
            ("selection", writer.selection(explanation.selection)),
            ("clears", .array(explanation.clears.map(writer.clear))),
            ("notInCatalog", .tabs(explanation.notInCatalog)),
        ])
    }

    static func optional(_ tab: TabID?) -> JSON { .string(tab?.rawValue) }

    /// Per-replica counts keyed by the replica's 16 hex digits.
    static func byReplica<Number: BinaryInteger>(_ values: [ReplicaID: Number]) -> JSON {
        .object(values.keys.sorted().map { ($0.description, .integer(values[$0]!)) })
    }

    struct Writer {
        let thisDevice: ReplicaID
        let formatter: ISO8601DateFormatter = {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter
        }()

        func provenance(_ provenance: Provenance) -> JSON {
            .object([
                ("replica", .string(provenance.origin.description)),
                ("thisDevice", .bool(provenance.isThisDevice)),
                ("at", provenance.hasTime ? .string(formatter.string(from: provenance.date)) : .null),
                ("stamp", .string(provenance.stamp.description)),
                ("sequence", .integer(provenance.dot.sequence)),
                ("writtenAs", optional(provenance.writtenAs)),
            ])
        }

        func tab(_ tab: TabExplanation) -> JSON {
            .object([
                ("tab", .string(tab.tab.rawValue)), ("index", .integer(tab.index)),
                ("formerIDs", .tabs(tab.formerIDs)), ("place", place(tab.place)),
                ("customizable", flag(tab.customizable)), ("hidden", flag(tab.hidden)),
                ("badge", tab.badge.map(badge) ?? .null),
                (
                    "badgeText",
                    tab.badgeText.map {
                        .object([("text", .string($0.text)), ("by", provenance($0.provenance))])
                    }
                        ?? .null
                ),
            ])
        }

        func place(_ place: TabExplanation.Place) -> JSON {
            switch place {
            case .fixed(let index):
                return .object([("source", .string("fixed")), ("catalogIndex", .integer(index))])
            case .catalogDefault(let after):
                return .object([("source", .string("catalogDefault")), ("after", optional(after))])
            case .moved(let by, let slot):
                let slotJSON = slot.map {
                    JSON.object([("after", optional($0.after)), ("next", optional($0.next))])
                }
                return .object([
                    ("source", .string("moved")), ("by", provenance(by)), ("slot", slotJSON ?? .null),
                ])
            case .pinned(let by):
                return .object([("source", .string("pinned")), ("by", provenance(by))])
            }
        }

        func flag(_ flag: TabExplanation.Flag) -> JSON {
            switch flag.source {
            case .catalogDefault:
                return .object([("value", .bool(flag.value)), ("source", .string("catalogDefault"))])
            case .edited(let by):
                return .object([
                    ("value", .bool(flag.value)), ("source", .string("edited")), ("by", provenance(by)),
                ])
            case .placement(let placement):
                return .object([
                    ("value", .bool(flag.value)), ("source", .string("placement")),
                    ("placement", .string(placement.rawValue)),
                ])
            }
        }

        func badge(_ badge: BadgeExplanation) -> JSON {
            let baseline: String
            switch badge.baseline {
            case .none: baseline = "none"
            case .reset: baseline = "reset"
            case .clear: baseline = "clear"
            }
            let reset = badge.reset.map {
                JSON.object([
                    ("count", .integer($0.count)), ("seen", byReplica($0.seen)),
                    ("by", provenance($0.provenance)),
                ])
            }
            let increments = badge.increments.map {
                JSON.object([
                    ("replica", .string($0.replica.description)),
                    ("thisDevice", .bool($0.replica == thisDevice)), ("total", .integer($0.total)),
                    ("baseline", .integer($0.baseline)), ("counted", .integer($0.counted)),
                    ("by", provenance($0.provenance)),
                ])
            }
            return .object([
                ("count", .integer(badge.count)), ("baseline", .string(baseline)), ("reset", reset ?? .null),
                ("increments", .array(increments)),
            ])
        }

        func selection(_ selection: SelectionExplanation) -> JSON {
            .object([
                ("stored", value(selection.stored)), ("shown", value(selection.shown)),
                ("by", selection.provenance.map(provenance) ?? .null),
            ])
        }

        func value(_ selection: Selection) -> JSON {
            switch selection {
            case .tab(let tab): .string(tab.rawValue)
            case .more: .string("more")
            case .none: .null
            }
        }

        func clear(_ clear: ClearExplanation) -> JSON {
            let totals = clear.badgeTotals.keys.sorted().map {
                ($0.rawValue, byReplica(clear.badgeTotals[$0]!))
            }
            let covered = Dictionary(
                uniqueKeysWithValues: clear.covered.replicas.map { ($0, clear.covered[$0]) })
            return .object([
                ("by", provenance(clear.provenance)), ("covered", byReplica(covered)),
                ("removedTabs", .tabs(clear.removedTabs)),
                ("removedSelection", .bool(clear.removedSelection)), ("badgeTotals", .object(totals)),
            ])
        }
    }
}
