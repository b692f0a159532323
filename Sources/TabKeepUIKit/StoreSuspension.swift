#if canImport(UIKit) && (os(iOS) || os(visionOS))
    public import Foundation
    public import TabKeep
    public import UIKit

    /// Suspends a store while the app is in the background, so iOS never finds the suspended app
    /// holding a file lock in an App Group container, which it punishes by terminating the app
    /// (exception code `0xdead10cc`).
    ///
    /// When the app enters the background, this begins a background task (so the commits in
    /// flight can finish), awaits ``TabKeep/TabKeepStore/suspend()`` and ends the task; when the
    /// app returns to the foreground it calls ``TabKeep/TabKeepStore/resume()``. A store in
    /// `per-transaction` locking mode (the default on Apple platforms) holds no lock between
    /// transactions, so there the suspend only waits for the edits in flight and nothing ever
    /// waits for the resume; a store in `lmdb` mode holds POSIX locks on its `lock.mdb` while open,
    /// and the suspend closes it. Create one per store at launch and keep it for the app's life:
    ///
    /// ```swift
    /// let store = try TabKeepStore(directory: FileManager.default
    ///     .containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.app")!
    ///     .appendingPathComponent("TabKeep"))
    /// let suspension = StoreSuspension(store: store)
    /// ```
    ///
    /// In `lmdb` mode, work the app does with the store while in the background (a background
    /// fetch, say) reopens it; end such work with `await store.suspend()`. App extensions have no `UIApplication`: they
    /// call `suspend()` themselves when their host tells them they leave the foreground.
    @available(iOSApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    @MainActor
    public final class StoreSuspension {
        /// The store suspended in the background.
        public let store: TabKeepStore
        private let notificationCenter: NotificationCenter
        private var observers: [any NSObjectProtocol] = []
        private var backgroundTask = UIBackgroundTaskIdentifier.invalid

        /// Starts suspending `store` whenever the app enters the background and resuming it when
        /// the app returns, as `notificationCenter` reports.
        public init(store: TabKeepStore, notificationCenter: NotificationCenter = .default) {
            self.store = store
            self.notificationCenter = notificationCenter
            observers.append(
                notificationCenter.addObserver(
                    forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main
                ) { [weak self] _ in
                    MainActor.assumeIsolated { self?.applicationDidEnterBackground() }
                })
            observers.append(
                notificationCenter.addObserver(
                    forName: UIApplication.willEnterForegroundNotification, object: nil, queue: .main
                ) { [weak self] _ in
                    MainActor.assumeIsolated { self?.applicationWillEnterForeground() }
                })
        }

        isolated deinit {
            for observer in observers { notificationCenter.removeObserver(observer) }
        }

        /// Suspends the store inside a background task; called on
        /// `UIApplication.didEnterBackgroundNotification`.
        public func applicationDidEnterBackground() {
            endBackgroundTask()
            // If the time runs out first, the task must still end; the store may then still be open.
            let identifier = UIApplication.shared.beginBackgroundTask(withName: "TabKeep.suspend") {
                [weak self] in
                MainActor.assumeIsolated { self?.endBackgroundTask() }
            }
            backgroundTask = identifier
            Task { [store] in
                await store.suspend()
                // A later trip to the background has its own task, ended by its own suspend.
                if self.backgroundTask == identifier { self.endBackgroundTask() }
            }
        }

        /// Resumes the store; called on `UIApplication.willEnterForegroundNotification`.
        public func applicationWillEnterForeground() {
            store.resume()
        }

        private func endBackgroundTask() {
            guard backgroundTask != .invalid else { return }
            UIApplication.shared.endBackgroundTask(backgroundTask)
            backgroundTask = .invalid
        }
    }
#endif
