import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

/// `tabkeep explain`, run as the built binary: the history of three devices that sync, read back
/// through `--json` fact by fact, and every way there is nothing to explain.
@Suite("tabkeep explain: why is this tab here")
struct ExplainCommandTests {
    static let version1 = "home:fixed,inbox,chat,search,library,settings,labs:optional"
    /// The app update: chat renamed messages, wallet new. `--catalog` cannot say renames; the app registers it.
    static let version2 = try! Catalog(
        tabs: [
            Catalog.Tab(try! TabID("home"), placement: .fixed), Catalog.Tab(try! TabID("inbox")),
            Catalog.Tab(try! TabID("messages")), Catalog.Tab(try! TabID("search")),
            Catalog.Tab(try! TabID("library")), Catalog.Tab(try! TabID("wallet")),
            Catalog.Tab(try! TabID("settings")), Catalog.Tab(try! TabID("labs"), placement: .optional),
        ],
        renames: [try! TabID("chat"): try! TabID("messages")])

    /// The replica id of the store at `path` (opened only for the moment it takes to read it).
    func replica(_ path: String) throws -> String {
        try TabKeepStore(path: path).replicaID.description
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// phone moves settings, hides search, counts 2; tablet moves library, counts 3, selects chat;
    /// laptop sets the badge to 10 and counts 1 while the tablet counts 4 more; the app update
    /// reaches every device and, on the phone, messages stops being customizable; all sync.
    func makeHistory(_ phone: String, _ tablet: String, _ laptop: String) throws {
        for store in [phone, tablet, laptop] {
            try Tool.ok(["set", store, "--profile", "alice", "--catalog", Self.version1])
        }
        try Tool.ok(["set", phone, "--profile", "alice", "--move", "settings=1", "--hide", "search"])
        try Tool.ok(["set", phone, "--profile", "alice", "--badge-add", "inbox=2"])
        try Tool.ok(["sync", phone, "--peer", tablet])
        try Tool.ok([
            "set", tablet, "--profile", "alice", "--move", "library=1", "--badge-add", "inbox=3", "--select",
            "chat",
        ])
        try Tool.ok(["sync", laptop, "--peer", tablet])
        try Tool.ok(["set", laptop, "--profile", "alice", "--badge", "inbox=10", "--badge-add", "inbox=1"])
        try Tool.ok(["set", tablet, "--profile", "alice", "--badge-add", "inbox=4"])
        try Tool.ok(["sync", phone, "--peer", tablet])
        for store in [phone, tablet, laptop] { try TabKeepStore(path: store).registerCatalog(Self.version2) }
        try Tool.ok([
            "set", phone, "--profile", "alice", "--customizable", "library,wallet,settings,inbox",
        ])
        try Tool.ok(["sync", phone, "--peer", tablet])
        try Tool.ok(["sync", laptop, "--peer", tablet])
        try Tool.ok(["sync", phone, "--peer", tablet])
    }

    @Test func jsonExplainsEveryTabByTheDeviceThatDidItOnEveryDevice() throws {
        let started = Date(timeIntervalSinceNow: -1)
        let directory = TemporaryDirectory()
        let (phone, tablet, laptop) = (
            directory.sub("phone"), directory.sub("tablet"), directory.sub("laptop")
        )
        try makeHistory(phone, tablet, laptop)
        let ids = (phone: try replica(phone), tablet: try replica(tablet), laptop: try replica(laptop))
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]

        for store in [phone, tablet, laptop] {
            let result = try Tool.run(["explain", store, "--profile", "alice", "--json"])
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
            #expect(result.stdout.split(separator: "\n").count == 1)
            let object = try json(result.stdout)
            let here = try replica(store)
            #expect(object["thisDevice"] as? String == here)
            #expect(object["profile"] as? String == "alice" && object["bar"] as? String == "main")
            let shown = try json(try Tool.ok(["show", store, "--profile", "alice", "--json"]))
            #expect(object["order"] as? [String] == shown["order"] as? [String])
            #expect(
                object["order"] as? [String] == [
                    "home", "library", "settings", "inbox", "messages", "wallet",
                ])
            #expect(object["hidden"] as? [String] == ["search", "labs"])
            #expect(object["notInCatalog"] as? [String] == [])
            #expect((object["clears"] as? [Any])?.isEmpty == true)

            let tabs = try #require(object["tabs"] as? [[String: Any]])
            #expect(
                tabs.compactMap { $0["tab"] as? String } == (object["order"] as! [String]) + [
                    "search", "labs",
                ])
            var byTab: [String: [String: Any]] = [:]
            for tab in tabs { byTab[tab["tab"] as! String] = tab }

            /// Checks a provenance object: its device, "this device", and a time within the test.
            func check(_ by: Any?, _ device: String, timed: Bool = true, _ what: String) {
                guard let by = by as? [String: Any] else {
                    Issue.record("\(what): no provenance in \(String(describing: by))")
                    return
                }
                #expect(by["replica"] as? String == device, "\(what)")
                #expect(by["thisDevice"] as? Bool == (device == here), "\(what)")
                #expect((by["sequence"] as? Int ?? 0) > 0, "\(what)")
                if timed {
                    let at = (by["at"] as? String).flatMap(iso.date(from:))
                    #expect(
                        at.map { $0 >= started && $0 <= Date() } == true,
                        "\(what): \(String(describing: by["at"]))")
                }
            }
            func place(_ tab: String) -> [String: Any] { byTab[tab]?["place"] as? [String: Any] ?? [:] }

            #expect(
                place("home")["source"] as? String == "fixed" && place("home")["catalogIndex"] as? Int == 0)
            #expect(place("settings")["source"] as? String == "moved")
            check(place("settings")["by"], ids.phone, "settings' move")
            #expect(place("library")["source"] as? String == "moved")
            check(place("library")["by"], ids.tablet, "library's move")
            // A move writes nothing for the tabs around it: every other tab stands in its slot.
            for tab in ["inbox", "search", "labs", "messages"] {
                #expect(place(tab)["source"] as? String == "catalogDefault", "\(tab)")
            }
            #expect(byTab["messages"]?["formerIDs"] as? [String] == ["chat"])
            #expect(place("wallet")["source"] as? String == "catalogDefault")
            #expect(place("wallet")["after"] as? String == "library")

            let searchHidden = try #require(byTab["search"]?["hidden"] as? [String: Any])
            #expect(searchHidden["value"] as? Bool == true && searchHidden["source"] as? String == "edited")
            check(searchHidden["by"], ids.phone, "search hidden")
            let labsHidden = try #require(byTab["labs"]?["hidden"] as? [String: Any])
            #expect(
                labsHidden["value"] as? Bool == true && labsHidden["source"] as? String == "catalogDefault")
            let notCustomizable = try #require(byTab["messages"]?["customizable"] as? [String: Any])
            #expect(notCustomizable["value"] as? Bool == false)
            check(notCustomizable["by"], ids.phone, "messages not customizable")

            let selection = try #require(object["selection"] as? [String: Any])
            #expect(
                selection["stored"] as? String == "messages" && selection["shown"] as? String == "messages")
            check(selection["by"], ids.tablet, "selection")
            #expect((selection["by"] as? [String: Any])?["writtenAs"] as? String == "chat")

            let badge = try #require(byTab["inbox"]?["badge"] as? [String: Any])
            #expect(badge["count"] as? Int == 15)
            #expect((shown["badges"] as? [String: Int])?["inbox"] == 15)
            #expect(badge["baseline"] as? String == "reset")
            let reset = try #require(badge["reset"] as? [String: Any])
            #expect(reset["count"] as? Int == 10)
            #expect(reset["seen"] as? [String: Int] == [ids.phone: 2, ids.tablet: 3])
            check(reset["by"], ids.laptop, "badge reset")
            let increments = try #require(badge["increments"] as? [[String: Any]])
            var parts: [String: [Int]] = [:]
            for increment in increments {
                let device = increment["replica"] as? String ?? ""
                parts[device] = ["total", "baseline", "counted"].map { increment[$0] as? Int ?? -1 }
                check(increment["by"], device, "increments of \(device)")
                #expect(increment["thisDevice"] as? Bool == (device == here))
            }
            #expect(parts == [ids.phone: [2, 2, 0], ids.tablet: [7, 3, 4], ids.laptop: [1, 0, 1]])
        }
    }

    @Test func theTableNamesThisDeviceAndTheOthers() throws {
        let directory = TemporaryDirectory()
        let (phone, tablet, laptop) = (
            directory.sub("phone"), directory.sub("tablet"), directory.sub("laptop")
        )
        try makeHistory(phone, tablet, laptop)
        let tabletID = try replica(tablet)
        let text = try Tool.ok(["explain", phone, "--profile", "alice"])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("profile \"alice\", bar \"main\"; times in ") == true)
        #expect(
            lines.contains {
                $0.hasPrefix("devices: ") && $0.contains("(this device)") && $0.contains(tabletID)
            })
        let row = { (tab: String) in
            lines.first { $0.contains("  \(tab)  ") || $0.contains("  \(tab) (") } ?? ""
        }
        #expect(row("settings").contains("moved by this device, "))
        #expect(row("library").contains("moved by \(tabletID.prefix(8)), "))
        #expect(row("messages (was chat)").contains("catalog default"))
        #expect(row("wallet").contains("catalog default, in its slot after library's"))
        #expect(row("search").hasPrefix("  -") && row("search").contains("yes, set by this device, "))
        #expect(lines.contains { $0.hasPrefix("selected: messages, by \(tabletID.prefix(8)), ") })
        #expect(lines.contains { $0.hasPrefix("  inbox: 15 = set to 10 by ") })
        #expect(lines.contains("cleared: never"))
    }

    @Test func aResetShowsWhoClearedWhatAndWhen() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("phone")
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", Self.version1, "--hide", "search"])
        try Tool.ok(["set", store, "--profile", "alice", "--reset", "--select", "inbox"])
        let object = try json(try Tool.ok(["explain", store, "--profile", "alice", "--json"]))
        let clears = try #require(object["clears"] as? [[String: Any]])
        #expect(clears.count == 1)
        let by = try #require(clears.first?["by"] as? [String: Any])
        let here = try replica(store)
        #expect(by["thisDevice"] as? Bool == true && by["replica"] as? String == here)
        #expect(clears.first?["removedTabs"] as? [String] == ["search"])
        #expect(clears.first?["covered"] as? [String: Int] == [here: 1])
        #expect((object["selection"] as? [String: Any])?["stored"] as? String == "inbox")
        let text = try Tool.ok(["explain", store, "--profile", "alice"])
        #expect(text.contains("cleared by this device, ") && text.contains("removed what it saw of search"))
    }

    @Test func nothingToExplainExitsOneAndSaysWhy() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        try Tool.ok([
            "set", store, "--profile", "alice", "--catalog", Self.version1, "--move", "settings=1", "--hide",
            "search", "--badge-add", "library=1",
        ])
        let cases: [([String], String)] = [
            (["--profile", "bob"], "nothing is stored for profile \"bob\" in this store"),
            (
                ["--profile", "alice", "--bar", "side"],
                "nothing is stored for profile \"alice\", bar \"side\" (its bars: \"main\")"
            ),
        ]
        for (flags, message) in cases {
            for json in [[], ["--json"]] {
                let result = try Tool.run(["explain", store] + flags + json)
                #expect(result.status == 1, "\(flags)")
                #expect(result.stdout.isEmpty)
                #expect(result.stderr == "tabkeep: error: \(message)\n")
            }
        }
        let missing = try Tool.run(["explain", directory.sub("nowhere"), "--profile", "alice"])
        #expect(
            missing.status == 1
                && missing.stderr == "tabkeep: error: no store at \(directory.sub("nowhere"))\n")

        // A bar edited with an explicit catalog and none registered: no catalog to resolve against.
        try TabKeepStore(path: store).edit(
            try ProfileID("alice"), bar: try BarID("side"), catalog: Self.version2, .select(.more))
        let noCatalog = try Tool.run(["explain", store, "--profile", "alice", "--bar", "side"])
        #expect(
            noCatalog.status == 1 && noCatalog.stderr.contains("no catalog is registered for bar \"side\""))
        #expect(
            try Tool.ok(["explain", store, "--profile", "alice", "--bar", "side", "--catalog", "inbox"])
                .contains("selected: More"))
    }

    @Test func aCatalogThatLacksStoredTabsIsSaidPlainly() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        try Tool.ok([
            "set", store, "--profile", "alice", "--catalog", Self.version1, "--move", "settings=1", "--hide",
            "search", "--badge-add", "library=1",
        ])
        let result = try Tool.run([
            "explain", store, "--profile", "alice", "--catalog", "home:fixed,inbox", "--json",
        ])
        #expect(result.status == 0)
        #expect(
            result.stderr
                == "tabkeep: warning: the catalog does not offer stored tabs library, search, settings: kept, not shown\n"
        )
        #expect(
            try json(result.stdout)["notInCatalog"] as? [String] == ["library", "search", "settings"])
        let text = try Tool.run(["explain", store, "--profile", "alice", "--catalog", "home:fixed,inbox"])
        #expect(
            text.stdout.contains(
                "not in this catalog (kept, not shown): library, search, settings"))
    }

    @Test func badFlagsAreUsageErrorsAndHelpHasAnExample() throws {
        let cases: [[String]] = [
            ["explain"], ["explain", "/nowhere"], ["explain", "/nowhere", "--profile"],
            ["explain", "/nowhere", "--profile", "p", "--bogus"],
            ["explain", "/nowhere", "--profile", "p", "--catalog", "a:sideways"],
            ["explain", "/nowhere", "--profile", "p", "--bar", ""],
            ["explain", "/nowhere", "--profile", "p", "--json=yes"],
            ["explain", "/x", "/y", "--profile", "p"],
        ]
        for arguments in cases {
            let result = try Tool.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasPrefix("tabkeep: error: "), "\(arguments)")
            #expect(result.stderr.contains("usage: tabkeep explain STORE --profile P"), "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
        #expect(try Tool.ok(["explain", "--help"]).contains("Example:"))
        #expect(try Tool.ok(["help", "explain"]).hasPrefix("usage: tabkeep explain STORE --profile P"))
        #expect(try Tool.ok(["--help"]).contains("  explain "))
    }
}
