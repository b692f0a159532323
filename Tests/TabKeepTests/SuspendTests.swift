import TabKeepTestSupport
#if os(Linux)
    import Foundation
    import LMDBKit
    import Synchronization
    import Testing

    @testable import TabKeep

    /// `TabKeepStore.suspend()` leaves no lock and no descriptor on the store's files (iOS kills a
    /// suspended app that holds a file lock in an App Group container), loses no edit and keeps
    /// change streams and coordinators working. Checked against `/proc/locks` and `/proc/self/fd`.
    /// A value behind a mutex that tasks share by reference.
    final class Locked<Value: Sendable>: Sendable {
        private let mutex: Mutex<Value>
        init(_ value: Value) { mutex = Mutex(value) }
        func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
    }

    @Suite("Suspending a store")
    struct SuspendTests {
        let directory = TemporaryDirectory()

        /// A store in lmdb mode, whose suspension closes the environment (per-transaction
        /// suspension, which holds nothing back, is tested at the end).
        func open(_ name: String = "store", durability: Durability = .full, locking: Locking = .lmdb) throws
            -> TabKeepStore
        {
            try TabKeepStore(
                path: directory.sub(name),
                options: .init(durability: durability, pollInterval: .milliseconds(20), locking: locking))
        }

        /// Waits for `condition`, polling; false when `timeout` passes first. Never asserts a time.
        func eventually(
            isolation: isolated (any Actor)? = #isolation, timeout: Duration = .seconds(20),
            _ condition: () throws -> Bool
        ) async rethrows -> Bool {
            let deadline = ContinuousClock.now + timeout
            while try !condition() {
                if ContinuousClock.now >= deadline { return false }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return true
        }

        /// The synchronous edit (an `async` caller would get the group-commit one).
        func editSynchronously(_ store: TabKeepStore, _ profile: ProfileID, _ edit: TabBarEdit) throws {
            try store.edit(profile, edit)
        }

        @Test func suspendLetsGoOfEveryLockAndDescriptorAndTheNextReadReopens() async throws {
            let store = try open()
            let path = store.environment.path
            try store.registerCatalog(letterTabs)
            try await store.edit(profile("u"), .move(tab("c"), to: 0))
            let open = try StoreFileHolds(of: path)
            #expect(open.showsAnOpenEnvironment, "\(open)")

            await store.suspend()
            #expect(try StoreFileHolds(of: path) == .none)
            #expect(store.isSuspended && store.environment.isSuspended)
            #expect(!Environment.isOpen(path: path))

            // A read while suspended reopens transparently and sees every edit.
            #expect(try store.layout(profile("u")).order.first == tab("c"))
            #expect(try StoreFileHolds(of: path).showsAnOpenEnvironment)
            await store.suspend()
            #expect(try StoreFileHolds(of: path) == .none)

            store.resume()
            #expect(!store.isSuspended)
            #expect(try StoreFileHolds(of: path).showsAnOpenEnvironment)
            await store.suspend()
            #expect(try StoreFileHolds(of: path) == .none)
        }

        @MainActor
        @Test(.timeLimit(.minutes(2))) func suspendWhileSixteenTasksEditLosesNoAcknowledgedEdit() async throws
        {
            let store = try open()
            let path = store.environment.path
            try store.registerCatalog(letterTabs)
            // Read-only consumers: a change stream and a coordinator of the profile task 0 edits.
            let seen = Locked<Set<DocumentKey>>([])
            let changes = store.changes()
            let consumer = Task.detached {
                for await key in changes { seen.withLock { _ = $0.insert(key) } }
            }
            let model = TabBarControllerModel()
            let coordinator = TabBarCoordinator(
                store: store, profile: profile("task-0"), catalog: letterTabs, host: model)
            try coordinator.attach()

            let editsPerTask = 40
            let acknowledged = Locked<[Int]>(Array(repeating: 0, count: 16))
            let failures = Locked<[String]>([])
            let editors = (0..<16).map { task in
                Task.detached {
                    for _ in 0..<editsPerTask {
                        do {
                            try await store.edit(
                                profile("task-\(task)"), catalog: letterTabs, .addToBadge(tab("a"), 1))
                            acknowledged.withLock { $0[task] += 1 }
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    }
                }
            }
            // Suspend in the middle of the stream of edits.
            // A generous bound: on a loaded machine (the whole suite runs in parallel) 64 fsyncs can be slow.
            #expect(
                await eventually(timeout: .seconds(100)) { acknowledged.withLock { $0.reduce(0, +) } >= 64 })
            await store.suspend()
            let atSuspend = acknowledged.withLock { $0 }
            // Each task has one edit in flight, so the suspend lands in the middle of the stream.
            #expect(atSuspend.reduce(0, +) < 16 * editsPerTask, "edits were still coming when suspend() ran")
            #expect(try StoreFileHolds(of: path) == .none)
            // Held edits, the stream and the coordinator leave the files alone while suspended.
            try await Task.sleep(for: .milliseconds(200))
            #expect(try StoreFileHolds(of: path) == .none)
            // An edit of the last batch committed before the suspend may be acknowledged just after
            // it returns (its task resumes on the pool): at most one a task, then nothing more.
            let settled = acknowledged.withLock { $0 }
            #expect(zip(settled, atSuspend).allSatisfy { $0 - $1 <= 1 }, "edits committed while suspended")
            try await Task.sleep(for: .milliseconds(200))
            #expect(acknowledged.withLock { $0 } == settled, "no edit is acknowledged while suspended")

            store.resume()
            for editor in editors { await editor.value }
            #expect(failures.withLock { $0 }.isEmpty)
            #expect(acknowledged.withLock { $0 } == Array(repeating: editsPerTask, count: 16))
            for task in 0..<16 {
                #expect(try store.layout(profile("task-\(task)")).badges[tab("a")] == editsPerTask)
            }
            #expect(await eventually { seen.withLock { $0.count } == 16 })
            #expect(await eventually { model.badgeValue(for: tab("a")) == "\(editsPerTask)" })
            try await coordinator.flush()
            coordinator.detach()
            consumer.cancel()
        }

        @Test(.timeLimit(.minutes(1))) func aWriteByAnotherProcessWhileSuspendedIsReportedAfterResume()
            async throws
        {
            let tabkeep = try #require(builtProduct("tabkeep"), "the tabkeep tool is built with the tests")
            let store = try open()
            let path = store.environment.path
            try store.registerCatalog(letterTabs)
            let seen = Locked<[DocumentKey]>([])
            let changes = store.changes()
            let consumer = Task.detached {
                for await key in changes { seen.withLock { $0.append(key) } }
            }
            await store.suspend()

            let process = Process()
            process.executableURL = URL(fileURLWithPath: tabkeep)
            process.arguments = ["set", path, "--profile", "other", "--catalog", "a,b,c", "--move", "c=0"]
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0)
            try await Task.sleep(for: .milliseconds(200))
            #expect(seen.withLock { $0 }.isEmpty, "a suspended store does not poll")
            #expect(try StoreFileHolds(of: path) == .none)

            store.resume()
            let key = DocumentKey(profile: profile("other"), bar: .main)
            #expect(await eventually { seen.withLock { $0.contains(key) } })
            #expect(
                try store.layout(profile("other"), catalog: try Catalog(["a", "b", "c"].map(tab))).order.first
                    == tab("c"))
            consumer.cancel()
        }

        @Test(.timeLimit(.minutes(5))) func aThousandSuspendResumeCyclesLeakNothingAndLoseNoEdit()
            async throws
        {
            let store = try open(durability: .metaAsync)
            let path = store.environment.path
            try store.registerCatalog(letterTabs)
            let opened = try StoreFileHolds(of: path)
            let cycles = 1_000
            for cycle in 0..<cycles {
                if cycle.isMultiple(of: 2) {
                    let edit = Task { try await store.edit(profile("u"), .addToBadge(tab("a"), 1)) }
                    if cycle.isMultiple(of: 4) { await store.suspend() }
                    store.resume()
                    try await edit.value
                } else {
                    try editSynchronously(store, profile("u"), .addToBadge(tab("b"), 1))
                    await store.suspend()
                    if cycle.isMultiple(of: 3) { store.resume() }  // else the next call reopens it
                }
            }
            #expect(try StoreFileHolds(of: path).descriptors == opened.descriptors)
            await store.suspend()
            #expect(try StoreFileHolds(of: path) == .none)
            store.resume()
            let badges = try store.layout(profile("u")).badges
            #expect(badges[tab("a")] == cycles / 2 && badges[tab("b")] == cycles / 2)
        }

        /// In per-transaction mode the store holds no lock between transactions, so suspending
        /// only waits for what is in flight: the store is not marked suspended, an edit issued
        /// afterwards runs at once, and nothing ever waits for `resume()` (never called here).
        @Test(.timeLimit(.minutes(1))) func inPerTransactionModeAnEditAfterSuspendRunsWithoutResume()
            async throws
        {
            let store = try open(locking: .perTransaction)
            let path = store.environment.path
            try store.registerCatalog(letterTabs)
            let edits = (0..<8).map { _ in
                Task { try await store.edit(profile("u"), .addToBadge(tab("a"), 1)) }
            }
            // Edits racing the suspend, submitted before or after it: all commit, none is held.
            await store.suspend()
            #expect(!store.isSuspended && !store.environment.isSuspended)
            for edit in edits { try await edit.value }
            await store.suspend()
            let holds = try StoreFileHolds(of: path)
            #expect(holds.lockFileLocks.isEmpty && holds.dataFileLocks.isEmpty, "\(holds)")
            try await store.edit(profile("u"), .addToBadge(tab("a"), 1))
            #expect(try store.layout(profile("u")).badges[tab("a")] == 9)
            let after = try StoreFileHolds(of: path)
            #expect(after.lockFileLocks.isEmpty && after.dataFileLocks.isEmpty, "\(after)")
            #expect(store.environment.openings == 1, "the environment was closed and reopened")
        }
    }
#endif
