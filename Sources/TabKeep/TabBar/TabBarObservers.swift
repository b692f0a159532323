/// The observers of one host, shared by the model and the UIKit skin so both report alike.
///
/// Selection reports are deduplicated against the last one sent, so a host may call
/// ``reportSelection(_:by:)`` after anything that might have changed the selection.
@MainActor
package final class TabBarObservers {
    private var handlers: [(id: Int, handler: @MainActor (TabBarHostEvent) -> Void)] = []
    private var nextID = 0
    private var reportedSelection: Selection = .none

    package init() {}

    /// Registers `handler`; the observation removes it.
    package func add(_ handler: @escaping @MainActor (TabBarHostEvent) -> Void) -> TabBarObservation {
        let id = nextID
        nextID += 1
        handlers.append((id, handler))
        return TabBarObservation { [weak self] in
            self?.handlers.removeAll { $0.id == id }
        }
    }

    /// Sends `event` to every handler registered now (a handler may add or cancel others).
    package func send(_ event: TabBarHostEvent) {
        for entry in handlers {
            entry.handler(event)
        }
    }

    /// Sends ``TabBarHostEvent/selectionChanged(_:by:)`` when `selection` differs from the last sent.
    package func reportSelection(_ selection: Selection, by source: SelectionChangeSource) {
        guard selection != reportedSelection else { return }
        reportedSelection = selection
        send(.selectionChanged(selection, by: source))
    }
}

/// Checks a list of tabs names each tab once.
package func checkNoDuplicates(_ tabs: [TabID]) throws(TabBarError) {
    var seen = Set<TabID>()
    for tab in tabs where !seen.insert(tab).inserted {
        throw TabBarError.duplicateTab(tab)
    }
}
