import TabKeep

/// The seeded generator of the script-based property tests: SplitMix64's numbers, each recorded,
/// with the start of every script step marked, so that ``shrinkScript(_:attempts:run:)`` can run
/// the script again with steps cut out. Given only a seed, it draws exactly what
/// `SplitMix64(seed:)` draws.
package struct ScriptRandom: RandomNumberGenerator, Sendable {
    private var source: SplitMix64
    private let replayed: [UInt64]
    /// Every number handed out so far.
    package private(set) var drawn: [UInt64] = []
    /// Where in `drawn` each step began.
    package private(set) var stepStarts: [Int] = []

    /// Hands out `replayed` first, then SplitMix64's numbers from `seed`.
    package init(seed: UInt64, replaying replayed: [UInt64] = []) {
        source = SplitMix64(seed: seed)
        self.replayed = replayed
    }

    package mutating func next() -> UInt64 {
        let value = drawn.count < replayed.count ? replayed[drawn.count] : source.next()
        drawn.append(value)
        return value
    }

    /// Marks that a script step begins with the next number drawn.
    package mutating func beginStep() { stepStarts.append(drawn.count) }
}

/// One run of a script: the numbers it drew, where its steps began, and what failed (nil: passed).
package struct ScriptRun: Sendable {
    package var drawn: [UInt64]
    package var stepStarts: [Int]
    package var failure: String?

    package init(_ random: ScriptRandom, failure: String?) {
        drawn = random.drawn
        stepStarts = random.stepStarts
        self.failure = failure
    }

    /// How many steps the script ran.
    package var steps: Int { stepStarts.count }

    /// The run as a failing test reports its smallest script: steps kept of `total`, and the failure.
    package func describedAsSmallest(of total: Int) -> String {
        "smallest failing script found (\(steps) of \(total) steps):\n\(failure ?? "none")"
    }
}

/// The smallest failing script found by cutting steps out of `failing` while it keeps failing:
/// halves of the steps first, then quarters, down to single steps, each cut tried from the end.
/// `run` runs a script of the given number of steps drawing the given numbers first (what a cut
/// leaves); a cut step's numbers are gone, so the steps after it draw what they drew before as far
/// as their choices still line up. At most `attempts` runs.
package func shrinkScript(
    _ failing: ScriptRun, attempts: Int = 150, run: (_ replaying: [UInt64], _ steps: Int) throws -> ScriptRun
) rethrows -> ScriptRun {
    var shrinker = ScriptShrinker(failing, attempts: attempts)
    while let (replaying, steps) = shrinker.nextCut() {
        shrinker.record(try run(replaying, steps))
    }
    return shrinker.smallest
}

/// ``shrinkScript(_:attempts:run:)`` for a script whose steps await (a coordinator's flush, a
/// relaunch). It runs on the caller's actor (a main-actor test's coordinator stays on the main actor).
package func shrinkScript(
    _ failing: ScriptRun, attempts: Int = 150, isolation: isolated (any Actor)? = #isolation,
    run: (_ replaying: [UInt64], _ steps: Int) async throws -> ScriptRun
) async rethrows -> ScriptRun {
    var shrinker = ScriptShrinker(failing, attempts: attempts)
    while let (replaying, steps) = shrinker.nextCut() {
        shrinker.record(try await run(replaying, steps))
    }
    return shrinker.smallest
}

/// The cuts of ``shrinkScript(_:attempts:run:)`` one at a time, so that a synchronous and an
/// asynchronous script share one search: ask for a cut, run it, record what it did.
package struct ScriptShrinker: Sendable {
    /// The smallest failing script found so far.
    package private(set) var smallest: ScriptRun
    private var left: Int
    private var width: Int
    private var start: Int

    package init(_ failing: ScriptRun, attempts: Int) {
        smallest = failing
        left = attempts
        width = max(1, failing.steps / 2)
        start = failing.steps - width
    }

    /// The next script to run — the numbers to draw first and its number of steps — or nil when
    /// the search is over.
    package mutating func nextCut() -> (replaying: [UInt64], steps: Int)? {
        while width >= 1 && left > 0 {
            guard start >= 0 else {
                width /= 2
                start = smallest.steps - width
                continue
            }
            let from = smallest.stepStarts[start]
            let end = start + width
            let to = end < smallest.steps ? smallest.stepStarts[end] : smallest.drawn.count
            left -= 1
            return (Array(smallest.drawn[..<from] + smallest.drawn[to...]), smallest.steps - width)
        }
        return nil
    }

    /// What the cut ``nextCut()`` handed out did.
    package mutating func record(_ result: ScriptRun) {
        if result.failure != nil && result.steps < smallest.steps {
            smallest = result
            start = min(start, smallest.steps - width)
        } else {
            start -= 1
        }
    }
}

/// The shortest input found by removing bytes from `failing` while `fails` still holds: runs of
/// half the bytes first, then quarters, down to single bytes. For the byte-level property tests
/// (mutated documents, dump lines, messages), whose failing case is an input, not a script.
package func shrinkBytes(_ failing: [UInt8], attempts: Int = 2_000, fails: ([UInt8]) -> Bool) -> [UInt8] {
    var smallest = failing
    var left = attempts
    var width = max(1, smallest.count / 2)
    while width >= 1 && left > 0 {
        var start = smallest.count - width
        while start >= 0 && left > 0 {
            var candidate = smallest
            candidate.removeSubrange(start..<(start + width))
            left -= 1
            if fails(candidate) {
                smallest = candidate
                start = min(start, smallest.count - width)
            } else {
                start -= 1
            }
        }
        width /= 2
    }
    return smallest
}
