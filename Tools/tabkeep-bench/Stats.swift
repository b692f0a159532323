import Foundation
import ToolSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Monotonic nanoseconds, read with one `clock_gettime` call (cheaper than `ContinuousClock.now`
/// arithmetic, which matters for sub-microsecond reads).
@inline(__always)
func nanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// Per-operation times of one contender, in nanoseconds.
struct Samples {
    private(set) var values: [UInt64] = []
    private var sorted = true

    var count: Int { values.count }
    var total: UInt64 { values.reduce(0, +) }

    mutating func add(_ value: UInt64) {
        values.append(value)
        sorted = false
    }

    /// The value at quantile `q` (0…1), by the nearest-rank method.
    mutating func quantile(_ q: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        if !sorted {
            values.sort()
            sorted = true
        }
        let rank = Int((q * Double(values.count)).rounded(.up)) - 1
        return Double(values[min(max(rank, 0), values.count - 1)])
    }
}

/// One line of the report.
struct ResultRow: Codable {
    var workload: String
    var scale: String
    var contender: String
    /// Median time per operation, nanoseconds.
    var medianNanoseconds: Double?
    /// 99th percentile time per operation, nanoseconds.
    var p99Nanoseconds: Double?
    /// Operations measured.
    var operations: Int?
    /// A throughput figure, in `rateUnit`.
    var rate: Double?
    var rateUnit: String?
    /// Median time over raw LMDB's median in the same workload and scale.
    var ratioToRawLMDB: Double?
    var note: String?
    /// A TabKeep row's locking mode (`lmdb` or `per-transaction`); nil for the other contenders.
    var locking: String?
}

/// A target of the issue and whether the run met it.
struct TargetResult: Codable {
    var target: String
    var met: Bool?
    var figures: String
}

/// Everything one run measured.
struct Report: Codable {
    var machine: Machine
    var command: String
    var rows: [ResultRow] = []
    var targets: [TargetResult] = []

    /// Fills `ratioToRawLMDB` for `rows` of one workload and scale against the named raw LMDB row.
    static func ratios(_ rows: inout [ResultRow], baseline: String) {
        guard let base = rows.first(where: { $0.contender == baseline })?.medianNanoseconds, base > 0 else {
            return
        }
        for index in rows.indices {
            if let median = rows[index].medianNanoseconds { rows[index].ratioToRawLMDB = median / base }
        }
    }

    func row(_ workload: String, _ scale: String, _ contender: String) -> ResultRow? {
        rows.first { $0.workload == workload && $0.scale == scale && $0.contender == contender }
    }
}

/// Formats nanoseconds for people: 850 ns, 12.3 µs, 4.56 ms, 1.23 s.
func formatTime(_ nanoseconds: Double?) -> String {
    guard let value = nanoseconds, value.isFinite else { return "—" }
    switch value {
    case ..<1_000: return String(format: "%.0f ns", value)
    case ..<1_000_000: return String(format: "%.2f µs", value / 1_000)
    case ..<1_000_000_000: return String(format: "%.2f ms", value / 1_000_000)
    default: return String(format: "%.2f s", value / 1_000_000_000)
    }
}

/// Formats a throughput with a thousands-friendly suffix.
func formatRate(_ value: Double?, _ unit: String?) -> String {
    guard let value, value.isFinite else { return "—" }
    let unit = unit ?? ""
    switch value {
    case 1e6...: return String(format: "%.2fM %@", value / 1e6, unit)
    case 1e4...: return String(format: "%.1fk %@", value / 1e3, unit)
    default: return String(format: "%.1f %@", value, unit)
    }
}

extension Report {
    /// The report as a Markdown table with the machine on top, for stdout and the README.
    func table() -> String {
        var lines: [String] = []
        lines.append("tabkeep-bench — \(command)")
        lines.append("machine: \(machine.summary)")
        lines.append("")
        lines.append("| workload | scale | contender | median | p99 | rate | × raw LMDB | note |")
        lines.append("|---|---|---|---:|---:|---:|---:|---|")
        for row in rows {
            let ratio = row.ratioToRawLMDB.map { String(format: "%.2f×", $0) } ?? "—"
            lines.append(
                "| \(row.workload) | \(row.scale) | \(row.contender) | \(formatTime(row.medianNanoseconds)) | "
                    + "\(formatTime(row.p99Nanoseconds)) | \(formatRate(row.rate, row.rateUnit)) | \(ratio) | "
                    + "\(row.note ?? "") |")
        }
        if !targets.isEmpty {
            lines.append("")
            lines.append("| target | result | figures |")
            lines.append("|---|---|---|")
            for target in targets {
                let verdict = target.met.map { $0 ? "met" : "MISSED" } ?? "not measured"
                lines.append("| \(target.target) | \(verdict) | \(target.figures) |")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The report as indented JSON with sorted keys, a field left out where it has no value.
    func json() -> String {
        func object(_ members: [(String, JSON?)]) -> JSON {
            .object(members.compactMap { key, value in value.map { (key, $0) } }.sorted { $0.0 < $1.0 })
        }
        func number(_ value: Double?) -> JSON? { value.map { .double($0) } }
        let machine = object([
            ("cpu", .string(self.machine.cpu)), ("cores", .integer(self.machine.cores)),
            ("memoryGiB", .double(self.machine.memoryGiB)), ("kernel", .string(self.machine.kernel)),
            ("swift", .string(self.machine.swift)),
        ])
        let rows = rows.map { row in
            object([
                ("workload", .string(row.workload)), ("scale", .string(row.scale)),
                ("contender", .string(row.contender)), ("medianNanoseconds", number(row.medianNanoseconds)),
                ("p99Nanoseconds", number(row.p99Nanoseconds)),
                ("operations", row.operations.map { .integer($0) }),
                ("rate", number(row.rate)), ("rateUnit", row.rateUnit.map { .string($0) }),
                ("ratioToRawLMDB", number(row.ratioToRawLMDB)), ("note", row.note.map { .string($0) }),
                ("locking", row.locking.map { .string($0) }),
            ])
        }
        let targets = targets.map { target in
            object([
                ("target", .string(target.target)), ("met", target.met.map { .bool($0) }),
                ("figures", .string(target.figures)),
            ])
        }
        return object([
            ("machine", machine), ("command", .string(command)), ("rows", .array(rows)),
            ("targets", .array(targets)),
        ]).indentedText()
    }
}

/// A short label for a store size: 10k, 1M.
func scaleLabel(_ count: Int) -> String {
    if count >= 1_000_000 && count % 1_000_000 == 0 { return "\(count / 1_000_000)M" }
    if count >= 1_000 && count % 1_000 == 0 { return "\(count / 1_000)k" }
    return "\(count)"
}
