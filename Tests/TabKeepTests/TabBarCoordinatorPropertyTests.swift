import Foundation
import TabKeepTestSupport
import Testing

@testable import TabKeep

/// The coordinator through random scripts of an app's life — feature flags flipping the tab list,
/// the user customizing, tapping and selecting, relaunches — with the customizable subset checked
/// against the store after every step. A failing script is shrunk to its smallest failing cut and
/// reported with the line that replays it.
@MainActor
@Suite("TabBar coordinator, random scripts")
struct TabBarCoordinatorPropertyTests {
    /// Seeds 1, 2 and 3; `TABKEEP_COORDINATOR_SEED=N` runs seed N alone.
    nonisolated static let seeds: [UInt64] =
        ProcessInfo.processInfo.environment["TABKEEP_COORDINATOR_SEED"].flatMap(UInt64.init).map { [$0] }
        ?? [1, 2, 3]

    /// What one script did: its run (numbers drawn, steps, the failure) and what it exercised.
    struct Outcome {
        var run: ScriptRun
        var launches: Int
        var assignments: Int
    }

    /// The stores, launches and ids of the coordinator's scenario tests.
    typealias Fixtures = TabBarCoordinatorTests

    let profile = try! ProfileID("user-42")

    @Test(arguments: seeds)
    func customizableSubsetFollowsTheStoreThroughARandomScript(seed: UInt64) async throws {
        let outcome = try await script(seed: seed, replaying: [], steps: 200)
        if let failure = outcome.run.failure {
            let smallest = try await shrinkScript(outcome.run, attempts: 40) { replaying, steps in
                try await script(seed: seed, replaying: replaying, steps: steps).run
            }
            Issue.record(
                """
                \(failure)
                \(smallest.describedAsSmallest(of: outcome.run.steps))
                \(replayLine(seed: seed, variable: "TABKEEP_COORDINATOR_SEED", filter: "TabBarCoordinatorPropertyTests"))
                """)
            return
        }
        // The script really exercised relaunches and assignments.
        #expect(outcome.launches > 5 && outcome.assignments > 10)
    }

    /// One script of `steps` steps drawing `replaying` first, on a fresh store: it stops at the
    /// first step after which the model's customizable subset is not the stored one.
    func script(seed: UInt64, replaying: [UInt64], steps: Int) async throws -> Outcome {
        let temporary = try Fixtures.TemporaryStore()
        let store = temporary.store
        let home = try Fixtures.id("home")
        let flagged = try Fixtures.ids("search", "library", "help")
        let beta = try Fixtures.id("beta")  // a feature-flag tab the catalog does not list
        let catalog = try Catalog(
            tabs: [
                Catalog.Tab(home, placement: .fixed),
                Catalog.Tab(try Fixtures.id("feed")),
                Catalog.Tab(try Fixtures.id("search")),
                Catalog.Tab(try Fixtures.id("inbox")),
                Catalog.Tab(try Fixtures.id("library"), customizable: false),
                Catalog.Tab(try Fixtures.id("profile")),
                Catalog.Tab(try Fixtures.id("settings")),
                Catalog.Tab(try Fixtures.id("help")),
            ])
        try await store.edit(
            profile, catalog: catalog,
            [
                .setCustomizableFlag(Fixtures.id("profile"), false),
                .setCustomizableFlag(Fixtures.id("help"), false),
            ])

        var random = ScriptRandom(seed: seed, replaying: replaying)
        var enabled: Set<TabID> = Set(flagged)
        var launch = try Fixtures.Launch(store, catalog, profile: profile)
        let initial = try store.layout(profile, catalog: catalog).customizable
        try #require(
            Set(launch.model.customizableTabIDs) == Set(launch.model.tabIDs.filter(initial.contains)))
        var launches = 1
        var assignments = 0

        for step in 0..<steps {
            random.beginStep()
            let model = launch.model
            var action: String
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<20 where !model.isCustomizing:
                // The app assigns a list because a feature flag flipped.
                let flip = (flagged + [beta]).randomElement(using: &random)!
                if !enabled.insert(flip).inserted { enabled.remove(flip) }
                var list = catalog.tabs.map(\.id).filter { !flagged.contains($0) || enabled.contains($0) }
                if enabled.contains(beta) { list.append(beta) }
                switch Int.random(in: 0..<3, using: &random) {
                case 0: list = try launch.coordinator.arranged(list)
                case 1: list = [home] + list.dropFirst().shuffled(using: &random)
                default: break  // the catalog's default order, as an app without TabKeep would
                }
                try model.setTabIDs(list)
                assignments += 1
                action = "assign \(list)"
            case 0..<45:
                // The user customizes: Edit, drags of customizable tabs, Done.
                if !model.isCustomizing {
                    try model.beginCustomizing()
                    action = "begin customizing"
                } else if Int.random(in: 0..<4, using: &random) > 0, model.customizableTabIDs.count > 1 {
                    let tab = model.customizableTabIDs.randomElement(using: &random)!
                    let target = model.tabIDs.firstIndex(
                        of: model.customizableTabIDs.randomElement(using: &random)!)!
                    try model.moveTab(tab, to: target)
                    action = "move \(tab) to \(target)"
                } else {
                    try model.endCustomizing()
                    action = "end customizing"
                }
            case 0..<65 where !model.isCustomizing:
                let items = model.tabIDs.map(TabBarItem.tab) + (model.showsMore ? [.more] : [])
                let item = items.randomElement(using: &random)!
                try model.userTap(item)
                action = "tap \(item)"
            case 0..<85:
                if Bool.random(using: &random) {
                    let index = Int.random(in: -1...model.tabIDs.count, using: &random)
                    model.selectedIndex = index
                    action = "selectedIndex = \(index)"
                } else {
                    let tab = model.tabIDs.randomElement(using: &random)!
                    try model.setSelection(.tab(tab))
                    action = "select \(tab)"
                }
            default:
                try await launch.quit()
                launch = try Fixtures.Launch(store, catalog, profile: profile)
                launches += 1
                action = "relaunch"
            }

            // Checked at once, before anything else runs: a skipped re-application cannot be repaired first.
            // A set: the model keeps the subset's order as it was set while customizing moves tabs.
            let stored = try store.layout(profile, catalog: catalog).customizable
            let expected = Set(launch.model.tabIDs.filter(stored.contains))
            guard Set(launch.model.customizableTabIDs) == expected else {
                try await launch.coordinator.flush()
                return Outcome(
                    run: ScriptRun(
                        random,
                        failure: "step \(step) (\(action)): \(launch.model.customizableTabIDs) != \(expected)"
                    ),
                    launches: launches, assignments: assignments)
            }

            if Int.random(in: 0..<4, using: &random) == 0 { await Task.yield() }
            if step % 25 == 24 { try await launch.coordinator.flush() }
        }
        try await launch.coordinator.flush()
        return Outcome(run: ScriptRun(random, failure: nil), launches: launches, assignments: assignments)
    }
}
