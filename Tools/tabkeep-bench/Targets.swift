import Foundation
import LMDBKit

extension Bench {
    /// Judges the targets from the rows: reported, never asserted.
    func judgeTargets() {
        var targets: [TargetResult] = []
        let read = Workload.launchRead.rawValue
        let scales = options.profiles.map(scaleLabel)
        func median(_ workload: String, _ scale: String, _ contender: String) -> Double? {
            report.row(workload, scale, contender)?.medianNanoseconds
        }
        func check(_ name: String, _ met: Bool?, _ figures: String) {
            targets.append(TargetResult(target: name, met: met, figures: figures))
        }
        for locking in options.lockings {
            let mode = "\(locking)"
            let tabKeepRead = tabKeepName("TabKeep", locking)
            for scale in scales {
                guard let tabKeep = median(read, scale, tabKeepRead) else { continue }
                // The `catalog:` and every-property variants are reported beside the README's call, not judged.
                let variant =
                    (median(read, scale, tabKeepName("TabKeep catalog:", locking)).map {
                        "; catalog: \(formatTime($0))"
                    } ?? "")
                    + (median(read, scale, tabKeepName("TabKeep every property", locking)).map {
                        "; every property: \(formatTime($0))"
                    } ?? "")
                if let raw = median(read, scale, "raw LMDB") {
                    check(
                        "launch-read ≤ 2× raw LMDB (\(scale), \(mode))", tabKeep <= 2 * raw,
                        String(format: "%@ vs %@: %.2f×", formatTime(tabKeep), formatTime(raw), tabKeep / raw)
                            + variant)
                }
                if let sqlite = median(read, scale, "SQLite WAL") {
                    check(
                        "launch-read ≥ 3× faster than SQLite WAL (\(scale), \(mode))", sqlite >= 3 * tabKeep,
                        String(
                            format: "SQLite %@: %.2f× TabKeep's time", formatTime(sqlite), sqlite / tabKeep))
                }
                if let defaults = median(read, scale, "UserDefaults") {
                    check(
                        "launch-read ≥ 50× faster than UserDefaults (\(scale), \(mode))",
                        defaults >= 50 * tabKeep,
                        String(
                            format: "UserDefaults %@: %.2f× TabKeep's time", formatTime(defaults),
                            defaults / tabKeep))
                }
            }
            if let small = median(read, "10k", tabKeepRead), let large = median(read, "1M", tabKeepRead) {
                check(
                    "launch-read at 1M ≤ 1.5× at 10k (\(mode))", large <= 1.5 * small,
                    String(format: "%@ vs %@: %.2f×", formatTime(large), formatTime(small), large / small))
            }
            let first = Workload.firstLayout.rawValue
            let firstScale = scaleLabel(firstLayoutProfiles)
            if let ours = median(first, firstScale, tabKeepName("TabKeep", locking)),
                let sqlite = median(first, firstScale, "SQLite WAL")
            {
                check(
                    "first-layout ≤ SQLite WAL (\(mode))", ours <= sqlite,
                    String(format: "%@ vs %@: %.2f×", formatTime(ours), formatTime(sqlite), ours / sqlite))
            }
            if let ours = median(first, firstScale, tabKeepName("TabKeep", locking)),
                let json = median(first, firstScale, "JSON file")
            {
                check(
                    "first-layout ≤ a JSON file read + decode (\(mode))", ours <= json,
                    String(format: "%@ vs %@: %.2f×", formatTime(ours), formatTime(json), ours / json))
            }
            let edit = Workload.durableEdit.rawValue
            let editScale = scaleLabel(editProfiles)
            for durability in [".full", ".metaAsync"] {
                if let ours = median(edit, editScale, tabKeepName("TabKeep " + durability, locking)),
                    let raw = median(edit, editScale, "raw LMDB " + durability)
                {
                    check(
                        "durable-edit ≤ 1.25× raw LMDB (\(durability), \(mode))", ours <= 1.25 * raw,
                        String(format: "%@ vs %@: %.2f×", formatTime(ours), formatTime(raw), ours / raw))
                }
            }
            if let ours = median(edit, editScale, tabKeepName("TabKeep .full", locking)),
                let sqlite = median(edit, editScale, "SQLite WAL FULL")
            {
                check(
                    "durable-edit .full faster than SQLite WAL FULL (\(mode))", ours < sqlite,
                    String(format: "%@ vs %@: %.2f×", formatTime(ours), formatTime(sqlite), ours / sqlite))
            }
            // Both rows of concurrent-edits: 8 writers in this process, and 4 processes.
            let concurrent = report.rows.filter { $0.workload == Workload.concurrentEdits.rawValue }
            var scalesInOrder: [String] = []
            for row in concurrent where !scalesInOrder.contains(row.scale) { scalesInOrder.append(row.scale) }
            for scale in scalesInOrder {
                let rows = concurrent.filter { $0.scale == scale }
                let writers =
                    scale.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? scale
                if let ours = rows.first(where: {
                    $0.contender.hasPrefix("TabKeep") && $0.locking == locking.rawValue
                })?
                .rate,
                    let sqlite = rows.first(where: { $0.contender.hasPrefix("SQLite") })?.rate
                {
                    check(
                        "concurrent-edits ≥ 3× SQLite WAL FULL (\(writers), \(mode))", ours >= 3 * sqlite,
                        String(format: "%.0f vs %.0f edits/s: %.2f×", ours, sqlite, ours / sqlite))
                }
            }
        }
        for locking in options.lockings {
            let rows = report.rows.filter {
                $0.workload == Workload.sync.rawValue && $0.locking == locking.rawValue
            }
            if let apply = rows.first(where: { $0.contender.hasPrefix("TabKeep apply") })?.rate {
                check(
                    "sync apply ≥ 250k entries/s (\(locking))", apply >= 250_000,
                    String(format: "%.0f entries/s", apply))
            }
            if let extract = rows.first(where: { $0.contender.hasPrefix("TabKeep extract") })?.rate {
                check(
                    "sync extract ≥ 500k entries/s (\(locking))", extract >= 500_000,
                    String(format: "%.0f entries/s", extract))
            }
        }
        if !messageBytes.isEmpty {
            let largest = messageBytes.values.max() ?? 0
            check(
                "one-edit message < 1 KiB", largest < 1024,
                messageBytes.sorted { $0.key < $1.key }.map { "\(scaleLabel($0.key)): \($0.value) B" }.joined(
                    separator: ", "))
            let times = report.rows.filter {
                $0.workload == Workload.sync.rawValue && $0.scale.hasPrefix("one edit")
            }.compactMap(\.medianNanoseconds)
            if times.count >= 2, let low = times.min(), let high = times.max() {
                // "Independent of store size": within 2× across a 100× larger store.
                check(
                    "one-edit time independent of store size (within 2×)", high <= 2 * low,
                    times.map { formatTime($0) }.joined(separator: " vs ")
                        + String(format: ": %.2f×", high / low))
            }
        }
        for locking in options.lockings {
            for scale in ["100k", "1M"] + (options.smoke ? scales : []) {
                dumpRestoreTargets(scale, locking, check)
            }
        }
        report.targets = targets
    }

    /// The dump and restore targets of one store size in one locking mode.
    private func dumpRestoreTargets(
        _ scale: String, _ locking: Locking, _ check: (String, Bool?, String) -> Void
    ) {
        let mode = "\(scale), \(locking)"
        if let dump = phaseFigures[Self.phaseKey("TabKeep dump", scale, locking)] {
            let rate = Double(dump.documents) / dump.seconds
            check(
                "dump ≥ 150k profiles/s (\(mode))", rate >= 150_000, String(format: "%.0f profiles/s", rate))
            // Flat: the heap does not grow with the store (the mapped store is page cache).
            check(
                "dump heap flat (\(mode))", dump.peakAnonKiB < 16 * 1024,
                "heap/anon \(dump.peakAnonKiB / 1024) MiB")
        }
        if let restore = phaseFigures[Self.phaseKey("TabKeep restore (.replace)", scale, locking)] {
            let rate = Double(restore.documents) / restore.seconds
            check(
                "restore ≥ 100k profiles/s (\(mode))", rate >= 100_000,
                String(format: "%.0f profiles/s", rate))
        }
        // Judged on the heap: the mapped store's pages count in VmHWM but are page cache the
        // kernel can drop.
        for phase in ["TabKeep dump", "TabKeep restore (.replace)"] {
            guard let figures = phaseFigures[Self.phaseKey(phase, scale, locking)] else { continue }
            check(
                "\(phase) peak heap < 128 MiB (\(mode))", figures.peakHeapKiB < 128 * 1024,
                "heap \(figures.peakHeapKiB / 1024) MiB (VmHWM \(figures.peakKiB / 1024) MiB: anon "
                    + "\(figures.peakAnonKiB / 1024) MiB, mapped store \(figures.peakFileKiB / 1024) MiB)"
            )
        }
        if scale == "1M",
            let large = phaseFigures[Self.phaseKey("TabKeep restore (.replace)", "1M", locking)],
            let small = phaseFigures[Self.phaseKey("TabKeep restore (.replace)", "100k", locking)]
        {
            check(
                "restore (.replace) 1M peak heap ≤ 100k's + 64 MiB (\(locking))",
                large.peakHeapKiB <= small.peakHeapKiB + 64 * 1024,
                "\(large.peakHeapKiB / 1024) MiB vs \(small.peakHeapKiB / 1024) MiB")
        }
    }
}
