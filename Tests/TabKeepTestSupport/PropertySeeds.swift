import Foundation

/// The seeds of a property test: `[N]` when `one` (say `TABKEEP_MODEL_SEED`) is set, to replay a
/// failing seed alone; else `0..<N` for `many` (say `TABKEEP_MODEL_SEEDS`) when set, for a longer
/// search; else `0..<defaultCount`. `regressions`, seeds past the count that once failed, are
/// added to every run that is not of one seed.
package func propertySeeds(one: String, many: String, defaultCount: Int, regressions: [Int] = []) -> [Int] {
    let environment = ProcessInfo.processInfo.environment
    if let text = environment[one], let seed = Int(text) { return [seed] }
    let count = environment[many].flatMap(Int.init) ?? defaultCount
    return Array(0..<count) + regressions.filter { $0 >= count }
}

/// The line a failing property test prints so that its case can be run again alone:
/// `seed 7 — replay: TABKEEP_MODEL_SEED=7 swift test --filter IntentModelPropertyTests`.
/// Without a seed variable (a test with one fixed seed) the filter alone replays it.
package func replayLine(seed: UInt64, variable: String? = nil, filter: String) -> String {
    let setting = variable.map { "\($0)=\(seed) " } ?? ""
    return "seed \(seed) — replay: \(setting)swift test --filter \(filter)"
}
