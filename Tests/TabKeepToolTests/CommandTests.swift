import Foundation
import TabKeep
import TabKeepTestSupport
import Testing

@Suite("tabkeep commands: normal paths and errors")
struct CommandTests {
    @Test func versionAndHelpPrintAndExitZero() throws {
        #expect(try Tool.ok(["--version"]).hasPrefix("tabkeep "))
        let overview = try Tool.ok(["--help"])
        let commands = [
            "demo", "show", "profiles", "set", "dump", "restore", "verify", "stat", "backup", "sync", "erase",
        ]
        for command in commands {
            #expect(overview.contains("  \(command) "), "help lists \(command)")
            #expect(try Tool.ok(["help", command]).hasPrefix("usage: tabkeep \(command)"))
            #expect(try Tool.ok([command, "--help"]).contains("Example:"))
        }
        #expect(try Tool.ok(["help"]) == overview)
    }

    @Test func usageErrorsExitTwoWithOneLineUsage() throws {
        let cases: [[String]] = [
            [], ["bogus"], ["show", "/nowhere", "--profile"], ["show", "/nowhere", "--nope"],
            ["show", "/nowhere"], ["set", "/nowhere", "--profile", "p", "--move", "inbox"],
            ["set", "/nowhere", "--profile", "p", "--catalog", "a:sideways"],
            ["restore", "/x", "--input", "f", "--mode", "both"],
            ["show", "/nowhere", "--profile", String(repeating: "p", count: 200)], ["help", "bogus"],
            ["backup", "/x"], ["sync", "/x"], ["stat", "/x", "extra"],
            ["show", "/x", "--profile", "p", "--max-visible", "0"],
        ]
        for arguments in cases {
            let result = try Tool.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasPrefix("tabkeep: error: "), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("usage: tabkeep"), "\(arguments)")
            #expect(result.stderr.contains("--help"), "\(arguments)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func setCreatesTheStoreAndShowDrawsTheBar() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", appTabsSpec])
        try Tool.ok([
            "set", store, "--profile", "alice", "--move", "settings=1", "--select", "help", "--badge-add",
            "inbox=3", "--badge-text", "help=new", "--hide", "search", "--unhide", "labs", "--customizable",
            "settings,inbox",
        ])
        let text = try Tool.ok(["show", store, "--profile", "alice"])
        #expect(text.contains("| home | settings | inbox (3) | library | More |"))
        #expect(text.contains("More: *help \"new\"*, labs"))
        let json = try Tool.ok(["show", store, "--profile", "alice", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let keys: Set<String> = [
            "profile", "bar", "order", "visible", "more", "customizable", "hidden", "selected", "badges",
            "badgeTexts",
        ]
        #expect(Set(object.keys) == keys)
        #expect(object["order"] as? [String] == ["home", "settings", "inbox", "library", "help", "labs"])
        #expect(object["visible"] as? [String] == ["home", "settings", "inbox", "library"])
        #expect(object["more"] as? [String] == ["help", "labs"])
        #expect(object["customizable"] as? [String] == ["settings", "inbox"])
        #expect(object["hidden"] as? [String] == ["search"])
        #expect(object["selected"] as? String == "help")
        #expect(object["badges"] as? [String: Int] == ["inbox": 3])
        #expect(object["badgeTexts"] as? [String: String] == ["help": "new"])
        #expect(json.split(separator: "\n").count == 1)

        let wide = try Tool.ok(["show", store, "--profile", "alice", "--json", "--max-visible", "6"])
        #expect(wide.contains("\"more\":[]"))
        try Tool.ok(["set", store, "--profile", "alice", "--badge-add", "inbox=-5", "--select", "more"])
        let after = try Tool.ok(["show", store, "--profile", "alice", "--json"])
        #expect(after.contains("\"badges\":{}") && after.contains("\"selected\":\"more\""))
        let custom = try Tool.ok(["show", store, "--profile", "alice", "--json", "--catalog", "inbox,home"])
        #expect(custom.contains("\"order\":[\"inbox\",\"home\"]"))
        try Tool.ok(["set", store, "--profile", "alice", "--reset"])
        let reset = try Tool.ok(["show", store, "--profile", "alice"])
        #expect(reset.contains("| home | inbox | search | library | More |"))
    }

    @Test func setAndShowReportStoreErrorsWithExitOne() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        var result = try Tool.run(["show", directory.sub("missing"), "--profile", "p"])
        #expect(result.status == 1 && result.stderr.hasPrefix("tabkeep: error: no store at"))
        #expect(!FileManager.default.fileExists(atPath: directory.sub("missing")))
        result = try Tool.run(["set", store, "--profile", "p", "--move", "inbox=0"])
        #expect(result.status == 1 && result.stderr.contains("no catalog"))
        try Tool.ok(["set", store, "--profile", "p", "--catalog", appTabsSpec])
        result = try Tool.run(["set", store, "--profile", "p", "--move", "nope=0"])
        #expect(result.status == 1 && result.stderr.hasPrefix("tabkeep: error: edit refused"))
        result = try Tool.run(["set", store, "--profile", "p", "--move", "inbox=99"])
        #expect(result.status == 1)
        result = try Tool.run(["set", store, "--profile", "p"])
        #expect(result.status == 2)
    }

    @Test func profilesListsAndEraseForgets() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", appTabsSpec, "--select", "inbox"])
        try Tool.ok(["set", store, "--profile", "bob", "--select", "search"])
        try Tool.ok(["set", store, "--profile", "bob", "--bar", "side", "--catalog", "a,b", "--select", "b"])
        #expect(try Tool.ok(["profiles", store]) == "alice\tmain\nbob\tmain,side\n")
        let json = try Tool.ok(["profiles", store, "--json"])
        #expect(
            json
                == "[{\"profile\":\"alice\",\"bars\":[\"main\"]},{\"profile\":\"bob\",\"bars\":[\"main\",\"side\"]}]\n"
        )
        try Tool.ok(["erase", store, "--profile", "bob", "--bar", "side"])
        #expect(try Tool.ok(["profiles", store]) == "alice\tmain\nbob\tmain\n")
        try Tool.ok(["erase", store, "--profile", "bob"])
        #expect(try Tool.ok(["profiles", store]) == "alice\tmain\n")
        let missing = try Tool.run(["erase", store, "--profile", "carol"])
        #expect(missing.status == 1 && missing.stderr.hasPrefix("tabkeep: error: no profile"))
        #expect(try Tool.run(["erase", store]).status == 2)
        #expect(try Tool.run(["profiles", directory.sub("none")]).status == 1)
    }

    @Test func statPrintsFiguresAsTextAndJSON() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", appTabsSpec, "--select", "inbox"])
        try Tool.ok(["set", store, "--profile", "bob", "--select", "search"])
        let text = try Tool.ok(["stat", store])
        #expect(text.contains("page size") && text.contains("profiles     2"))
        let json = try Tool.ok(["stat", store, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let keys = [
            "pageSize", "depth", "entries", "mapSize", "usedBytes", "profiles", "bars", "documents",
            "replica",
            "versionVector", "schema",
        ]
        for key in keys { #expect(object[key] != nil, "stat --json has \(key)") }
        #expect(
            object["profiles"] as? Int == 2 && object["documents"] as? Int == 2
                && object["schema"] as? Int == TabKeepStore.schemaVersion)
        #expect((object["replica"] as? String)?.count == 16)
        #expect(try Tool.run(["stat", directory.sub("none")]).status == 1)
    }

    @Test func verifyPassesAHealthyStoreAndListsDamage() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        try Tool.ok([
            "set", store, "--profile", "alice", "--catalog", appTabsSpec, "--move", "help=1", "--badge",
            "inbox=4",
        ])
        #expect(try Tool.ok(["verify", store]).hasPrefix("ok: 1 documents"))
        try Damage.putStrayDotRecord(in: store, profile: profile("alice"))
        let result = try Tool.run(["verify", store])
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "problem: profiles: a dot record (profile‖0‖o‖…, schema 5 and older) in a schema-6 store"),
            "\(result.stdout)")
        #expect(result.stderr.hasPrefix("tabkeep: error: 1 problem found"))
    }

    @Test func backupCopiesAndRefusesANonEmptyDestination() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", appTabsSpec, "--select", "inbox"])
        try Tool.ok(["backup", store, directory.sub("copy")])
        try Tool.ok(["backup", store, directory.sub("compact"), "--compact"])
        for copy in ["copy", "compact"] {
            #expect(try Tool.ok(["verify", directory.sub(copy)]).hasPrefix("ok"))
            let shown = try Tool.ok(["show", directory.sub(copy), "--profile", "alice", "--json"])
            #expect(shown.contains("\"selected\":\"inbox\""))
        }
        let again = try Tool.run(["backup", store, directory.sub("copy")])
        #expect(again.status == 1 && again.stderr.hasPrefix("tabkeep: error: "))
        #expect(try Tool.run(["backup", directory.sub("none"), directory.sub("x")]).status == 1)
    }

    @Test func syncWithAPeerMergesBothWays() throws {
        let directory = TemporaryDirectory()
        let (a, b) = (directory.sub("a"), directory.sub("b"))
        try Tool.ok([
            "set", a, "--profile", "alice", "--catalog", appTabsSpec, "--move", "settings=1", "--badge-add",
            "inbox=3",
        ])
        try Tool.ok([
            "set", b, "--profile", "alice", "--catalog", appTabsSpec, "--move", "help=1", "--badge-add",
            "inbox=2",
        ])
        try Tool.ok(["sync", a, "--peer", b])
        let left = try Tool.ok(["show", a, "--profile", "alice", "--json"])
        #expect(left == (try Tool.ok(["show", b, "--profile", "alice", "--json"])))
        // Both moves went into the same gap at the front: either may come first, the rest keep their order.
        #expect(
            left.contains("\"order\":[\"home\",\"help\",\"settings\",\"inbox\",\"search\",\"library\"]")
                || left.contains(
                    "\"order\":[\"home\",\"settings\",\"help\",\"inbox\",\"search\",\"library\"]")
        )
        #expect(left.contains("\"badges\":{\"inbox\":5}"))
        #expect(try Tool.ok(["verify", a]).hasPrefix("ok"))
        #expect(try Tool.ok(["verify", b]).hasPrefix("ok"))
        // A backup copy takes a fresh replica id the first time it is opened for writing, so it
        // syncs with its original like any other device.
        try Tool.ok(["backup", a, directory.sub("copy")])
        let aID = try TabKeepStore(path: a).replicaID
        #expect(try Tool.ok(["sync", a, "--peer", directory.sub("copy")]).contains("received 0 documents"))
        let copyStat = try Tool.ok(["stat", directory.sub("copy"), "--json"])
        #expect(copyStat.contains("\"identityHistory\":[\"\(aID)\"]"))
        #expect(!copyStat.contains("\"replica\":\"\(aID)\""))
        #expect(try Tool.run(["sync", a, "--peer", a]).status == 1)
        #expect(try Tool.run(["sync", a, "--folder", directory.sub("f")]).status == 1)
        #expect(try Tool.run(["sync", a, "--peer", b, "--folder", directory.sub("f")]).status == 2)
    }

    @Test func demoWalksThroughAndCanRunAgainInTheSameDirectory() throws {
        let directory = TemporaryDirectory()
        for _ in 0..<2 {
            let output = try Tool.ok(["demo", "--store", directory.sub("demo")])
            #expect(output.contains("same layout on both: yes"))
            #expect(output.contains("Verify the restored store: ok"))
            #expect(output.contains("selected: help (under More)"))
        }
        #expect(try Tool.ok(["verify", directory.sub("demo/restored")]).hasPrefix("ok"))
    }
}
