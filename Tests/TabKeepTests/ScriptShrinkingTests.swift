import TabKeepTestSupport
import Testing

@testable import TabKeep

/// The support target's shrinker and recording generator, on a script small enough to reason about:
/// each step draws one number, and the script fails when some step drew a multiple of 7.
@Suite("Shrinking a failing script")
struct ScriptShrinkingTests {
    static func run(_ replaying: [UInt64], steps: Int) -> ScriptRun {
        var random = ScriptRandom(seed: 5, replaying: replaying)
        var failure: String?
        for step in 0..<steps {
            random.beginStep()
            if random.next() % 7 == 0 { failure = "step \(step) drew a multiple of 7" }
        }
        return ScriptRun(random, failure: failure)
    }

    @Test func aFailingScriptShrinksToTheOneStepThatFails() {
        let failing = Self.run([], steps: 40)
        #expect(failing.failure != nil)
        let smallest = shrinkScript(failing) { Self.run($0, steps: $1) }
        #expect(smallest.steps == 1)
        #expect(smallest.failure != nil)
        #expect(smallest.drawn.count == 1 && smallest.drawn[0] % 7 == 0)
    }

    @Test func aPassingRunDrawsWhatSplitMix64Draws() {
        var random = ScriptRandom(seed: 0x5EED)
        var reference = SplitMix64(seed: 0x5EED)
        for _ in 0..<100 { #expect(random.next() == reference.next()) }
    }
}
