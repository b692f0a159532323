import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@testable import TabKeepSync

/// Three catalog versions of one app: `home` is fixed, `f` optional (hidden until shown); the older
/// version lacks `d`, the newer one adds `h` after `b`.
let modelCatalogs: [Catalog] = {
    func catalog(_ names: [String]) -> Catalog {
        try! Catalog(
            tabs: names.map { name in
                Catalog.Tab(
                    tab(name), placement: name == "home" ? .fixed : name == "f" ? .optional : .default)
            })
    }
    return [
        catalog(["home", "a", "b", "c", "d", "e", "f"]),
        catalog(["home", "a", "b", "c", "e", "f"]),
        catalog(["home", "a", "b", "h", "c", "d", "e", "f"]),
    ]
}()

/// Stores that edit at random through the public API while a lossy network duplicates and reorders
/// sync messages; every accepted edit goes to the reference model as what its user meant.
struct ModelScenario {
    /// The script's numbers, recorded so a failing script can be shrunk.
    var random: ScriptRandom
    var stores: [TabKeepStore]
    let variants: [Int]
    var model: ReferenceModel
    let profiles = [profile("alice"), profile("bob")]
    /// Messages in flight: `carried`, the edits a message brings its receiver (what its sender
    /// knew past what the message was cut against), and `snapshot`, all its sender knew then. A
    /// message cut against a store that has since been replaced or restored brings only its
    /// `carried` edits, never what the store knew before.
    var inFlight: [(from: Int, to: Int, bytes: [UInt8], carried: Set<Int>, snapshot: Set<Int>)] = []
    var log: [String] = []
    /// Where the store did other than the user asked while the script ran.
    var scriptProblems: [String] = []

    /// A scenario drawing from `seed`, or first the numbers of `replaying` (a shrunk script's).
    init(
        seed: UInt64, replaying: [UInt64] = [], directory: TemporaryDirectory, sameCatalog: Bool = false,
        count range: ClosedRange<Int> = 3...5
    ) throws {
        random = ScriptRandom(seed: seed, replaying: replaying)
        let count = Int.random(in: range, using: &random)
        stores = try (0..<count).map { try directory.store("device-\($0)") }
        var chosen: [Int] = []
        for _ in 0..<count { chosen.append(Int.random(in: 0..<3, using: &random)) }
        if sameCatalog || Int.random(in: 0..<3, using: &random) == 0 {
            chosen = Array(repeating: 0, count: count)
        }
        variants = chosen
        model = ReferenceModel(devices: count)
    }

    mutating func run(steps: Int) throws {
        for _ in 0..<steps {
            random.beginStep()
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5: try edit(on: Int.random(in: 0..<stores.count, using: &random))
            case 5..<7: try startSession()
            default: try deliverOne()
            }
        }
    }

    /// The wall-clock millisecond of the last write that made stamps (an edit, a guest merge).
    var lastWriteMillisecond: Int64 = 0

    static func wallMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Waits until the wall clock is past the last write's millisecond, so this write's stamps
    /// follow every earlier one (stamps never run ahead of the wall clock: every device shares
    /// this machine's). Usually it is already past: no wait.
    func nextMillisecond() {
        // Sleeping in steps of 0.1 ms, not spinning: the core goes to the tests and tool
        // processes running beside this one.
        while Self.wallMilliseconds() <= lastWriteMillisecond { usleep(100) }
    }

    /// Records that a write that made stamps has just ended.
    mutating func wrote() {
        lastWriteMillisecond = Self.wallMilliseconds()
    }

    mutating func edit(on device: Int) throws {
        let store = stores[device]
        let catalog = modelCatalogs[variants[device]]
        let who = profiles[Int.random(in: 0..<profiles.count, using: &random)]
        let before = try store.layout(who, catalog: catalog)
        let shown = before.order
        let movable = shown.filter { $0 != tab("home") }
        let any = catalog.tabs.map(\.id).randomElement(using: &random)!
        // Badges on two tabs only, so sets, increments and clears meet on the same badge often.
        let badge = [tab("a"), tab("c")].randomElement(using: &random)!
        nextMillisecond()
        defer { wrote() }
        func record(_ change: ReferenceModel.Change) {
            model.record(change, profile: who, device: device, catalog: variants[device])
        }
        func attempt(_ edit: TabBarEdit) throws -> Bool {
            do {
                try store.edit(who, catalog: catalog, edit)
                log.append("device \(device) \(who): \(edit)")
                return true
            } catch {
                guard isRefusedEdit(error) else { throw error }
                return false
            }
        }
        switch Int.random(in: 0..<14, using: &random) {
        case 0..<4:
            guard let moved = movable.randomElement(using: &random) else { return }
            let to = Int.random(in: 1..<shown.count, using: &random)
            guard try attempt(.move(moved, to: to)) else { return }
            var intended = movable.filter { $0 != moved }
            intended.insert(moved, at: to - 1)
            guard intended != movable else { return }
            let at = intended.firstIndex(of: moved)!
            record(
                .move(
                    moved, after: at > 0 ? intended[at - 1] : nil,
                    before: at + 1 < intended.count ? intended[at + 1] : nil, copied: false))
        case 4:
            let target = [tab("home")] + movable.shuffled(using: &random)
            let old = try positionEntries(store, who)
            guard try attempt(.reorder(target)) else { return }
            let intended = Array(target.dropFirst())
            // The user's moves come from the two orders; the store's writes must be one of the
            // smallest sets of them (the tabs outside a longest run kept in order).
            let written = Set(try positionEntries(store, who).filter { old[$0.key] != $0.value }.keys)
            if let problem = ReferenceModel.reorderProblem(from: movable, to: intended, written: written) {
                scriptProblems.append("device \(device) \(who): \(problem)")
            }
            let movedTabs = intended.filter(written.contains)
            let batch = Set(model.edits.count..<model.edits.count + movedTabs.count)
            for moved in movedTabs {
                let at = intended.firstIndex(of: moved)!
                model.record(
                    .move(
                        moved, after: at > 0 ? intended[at - 1] : nil,
                        before: at + 1 < intended.count ? intended[at + 1] : nil, copied: false),
                    profile: who, device: device, catalog: variants[device], together: batch)
            }
        case 5:
            let wanted = movable.filter { _ in Bool.random(using: &random) }
            guard try attempt(.setCustomizable(wanted)) else { return }
            for id in movable where before.customizable.contains(id) != wanted.contains(id) {
                record(.customizable(id, wanted.contains(id)))
            }
        case 6:
            let flag = Bool.random(using: &random)
            if try attempt(.setCustomizableFlag(any, flag)) { record(.customizable(any, flag)) }
        case 7:
            let hidden = Bool.random(using: &random)
            if try attempt(.setHidden(any, hidden)) { record(.hidden(any, hidden)) }
        case 8:
            let selection = [Selection.tab(any), .more, .none].randomElement(using: &random)!
            if try attempt(.select(selection)) { record(.select(selection)) }
        case 9:
            let count = Int.random(in: 0...6, using: &random)
            if try attempt(count == 0 ? .clearBadge(badge) : .setBadge(badge, count)) {
                record(.badgeSet(badge, Int64(count)))
            }
        case 10, 11:
            let delta = [-4, -1, 1, 2, 5].randomElement(using: &random)!
            // The clamping the device applies to the count it sees, computed from the model.
            let raw = model.rawBadge(badge, who, in: model.knowledge[device])
            let effective = delta < 0 ? max(Int64(delta), -max(0, raw)) : Int64(delta) - min(0, raw)
            if try attempt(.addToBadge(badge, delta)), effective != 0 { record(.badgeAdd(badge, effective)) }
        case 12:
            let text = Bool.random(using: &random) ? "new" : nil
            if try attempt(.setBadgeText(any, text)) { record(.badgeText(any, text)) }
        default:
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                try store.reset(who)
                log.append("device \(device) \(who): reset")
                record(.clear)
            case 1:
                _ = try store.erase(who)
                log.append("device \(device) \(who): erase")
                record(.clear)
            default:
                let account = profiles.first { $0 != who }!
                try mergeGuest(who, into: account, on: device)
            }
        }
    }

    /// A guest merge as the model sees it: the guest's live registers and moves are copied into the
    /// account at the stamp order of the edit each copies, but after it (the store stamps a copy one
    /// tick after its original), its badge counts added as increments, and the guest erased.
    mutating func mergeGuest(_ guest: ProfileID, into account: ProfileID, on device: Int) throws {
        let known = model.knowledge[device]
        var copies: [ReferenceModel.Edit] = []
        var latest: [String: ReferenceModel.Edit] = [:]
        for edit in model.edits(of: guest, in: known) {
            let key: String
            switch edit.change {
            case .move(let tab, _, _, _): key = "position \(tab)"
            case .customizable(let tab, _): key = "customizable \(tab)"
            case .hidden(let tab, _): key = "hidden \(tab)"
            case .select: key = "selection"
            case .badgeText(let tab, _): key = "text \(tab)"
            default: continue
            }
            latest[key] = edit
        }
        for edit in latest.values where !model.isCleared(edit, in: known) { copies.append(edit) }
        var badges: [(TabID, Int64)] = []
        for id in Set(modelCatalogs.flatMap { $0.tabs.map(\.id) }).sorted() {
            let count = max(0, model.rawBadge(id, guest, in: known))
            if count > 0 { badges.append((id, count - min(0, model.rawBadge(id, account, in: known)))) }
        }
        nextMillisecond()
        try stores[device].mergeProfile(guest, into: account)
        wrote()
        log.append("device \(device): merge \(guest) into \(account)")
        for edit in copies.sorted(by: { $0.id < $1.id }) {
            var change = edit.change
            if case .move(let tab, let after, let before, _) = change {
                change = .move(tab, after: after, before: before, copied: true)
            }
            model.record(
                change, profile: account, device: device, catalog: edit.catalog, order: edit.order,
                copyOf: edit.id)
        }
        for (id, delta) in badges {
            model.record(.badgeAdd(id, delta), profile: account, device: device, catalog: variants[device])
        }
        model.record(.clear, profile: guest, device: device, catalog: variants[device])
    }

    mutating func startSession() throws {
        let from = Int.random(in: 0..<stores.count, using: &random)
        var to = Int.random(in: 0..<stores.count - 1, using: &random)
        if to >= from { to += 1 }
        inFlight.append(
            (from, to, try SyncSession(store: stores[from]).request().encoded(), [], model.knowledge[from]))
    }

    /// Delivers a random message (reordering); may lose it, or keep a copy to deliver again.
    mutating func deliverOne() throws {
        guard !inFlight.isEmpty else { return }
        let index = Int.random(in: 0..<inFlight.count, using: &random)
        let (sender, to, bytes, carried, snapshot) = inFlight[index]
        let roll = Int.random(in: 0..<10, using: &random)
        if roll >= 2 { inFlight.remove(at: index) }  // else: duplicated, stays in flight
        if roll == 9 { return }  // lost
        let session = SyncSession(store: stores[to])
        let message = try SyncMessage(decoding: bytes)
        switch message.kind {
        case .request:
            guard message.sender != stores[to].replicaID else { return }
            let reply = try session.respond(to: message).encoded()
            inFlight.append(
                (to, sender, reply, model.knowledge[to].subtracting(snapshot), model.knowledge[to]))
        case .reply, .final:
            guard message.sender != stores[to].replicaID else { return }
            let result = Result { () throws(SyncError) -> SyncReceipt in try session.receive(message) }
            guard case .success(let receipt) = result else {
                if case .failure(let error) = result, !ModelScenario.isMissingHistory(error) { throw error }
                return  // refused whole: nothing applied, nothing learnt
            }
            model.knowledge[to].formUnion(carried)
            if let final = receipt.reply {
                inFlight.append(
                    (
                        to, sender, final.encoded(), model.knowledge[to].subtracting(snapshot),
                        model.knowledge[to]
                    ))
            }
        }
    }

    static func isMissingHistory(_ error: SyncError) -> Bool {
        if case .missingHistory = error { return true }
        return false
    }

    /// Every pair in both directions, twice: then every store holds every edit.
    mutating func finalExchange() throws {
        for _ in 0..<2 {
            for first in stores.indices {
                for second in stores.indices where second > first {
                    try sync(stores[first], stores[second])
                    let union = model.knowledge[first].union(model.knowledge[second])
                    model.knowledge[first] = union
                    model.knowledge[second] = union
                }
            }
        }
    }

    /// Every difference between a store and the model, for every store and profile.
    func problems() throws -> [String] {
        var problems = scriptProblems
        for (device, store) in stores.enumerated() {
            let catalog = modelCatalogs[variants[device]]
            let known = model.knowledge[device]
            for who in profiles {
                let actual = try store.layout(who, catalog: catalog)
                let expected = model.expectedLayout(who, catalog: catalog, in: known)
                let place = "device \(device) (catalog \(variants[device])), \(who)"
                if Set(actual.order) != Set(expected.order) || Set(actual.hidden) != Set(expected.hidden) {
                    problems.append(
                        "\(place): shows \(actual.order) hides \(actual.hidden); model shows \(expected.order)"
                    )
                }
                if Set(actual.customizable) != Set(expected.customizable) {
                    problems.append(
                        "\(place): customizable \(actual.customizable); model \(expected.customizable)")
                }
                if actual.badges != expected.badges {
                    problems.append("\(place): badges \(actual.badges); model \(expected.badges)")
                }
                if actual.badgeTexts != expected.badgeTexts {
                    problems.append(
                        "\(place): badge texts \(actual.badgeTexts); model \(expected.badgeTexts)")
                }
                if actual.selection != expected.selection {
                    problems.append("\(place): selection \(actual.selection); model \(expected.selection)")
                }
                if actual.order.first != tab("home") { problems.append("\(place): home is not first") }
                problems += model.orderProblems(
                    actual.order, who, catalog: catalog, variant: variants[device], catalogs: modelCatalogs,
                    in: known
                ).map { "\(place): \($0)" }
            }
        }
        return problems
    }
}

/// The position entries of a profile's main bar, by tab.
func positionEntries(_ store: TabKeepStore, _ who: ProfileID) throws -> [TabID: Entry] {
    var result: [TabID: Entry] = [:]
    for entry in try store.document(who)?.entries ?? [] {
        if case .position(let id) = entry.key { result[id] = entry }
    }
    return result
}
