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

    @Test func theAwaitingShrinkerMakesTheSameCutsAsTheSynchronousOne() async {
        let failing = Self.run([], steps: 60)
        var cuts: [[UInt64]] = []
        let smallest = shrinkScript(failing) { replaying, steps in
            cuts.append(replaying)
            return Self.run(replaying, steps: steps)
        }
        var awaitedCuts: [[UInt64]] = []
        let awaited = await shrinkScript(failing) { replaying, steps in
            await Task.yield()
            awaitedCuts.append(replaying)
            return Self.run(replaying, steps: steps)
        }
        #expect(awaitedCuts == cuts && !cuts.isEmpty)
        #expect(awaited.drawn == smallest.drawn && awaited.steps == 1)
    }

    @Test func aFailingInputShrinksToTheBytesThatMakeItFail() {
        // Fails while it holds a 0xFF byte followed, anywhere later, by a 0x00 byte.
        func fails(_ bytes: [UInt8]) -> Bool {
            guard let high = bytes.firstIndex(of: 0xFF) else { return false }
            return bytes[high...].contains(0)
        }
        var random = SplitMix64(seed: 0xB17E5)
        var input = (0..<300).map { _ in UInt8(1 + random.next() % 200) }
        input[40] = 0xFF
        input[250] = 0
        let smallest = shrinkBytes(input, fails: fails)
        #expect(smallest == [0xFF, 0])
        #expect(shrinkBytes([1, 2, 3], fails: fails) == [1, 2, 3])  // a passing input is left alone
    }
}
