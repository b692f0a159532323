import Foundation
import TabKeepTestSupport
import Testing

/// The command-line layer every command shares (Tools/ToolSupport), checked through the binary:
/// generated help, refused flags and values, and the JSON writer's output.
@Suite("tabkeep command line: help, refused flags, JSON")
struct CommandLineTests {
    /// The flags each command is documented to take (Docs/CLI.md): a contract, not read from the tool.
    static let documentedFlags: [String: Set<String>] = [
        "demo": ["store"],
        "show": ["profile", "bar", "catalog", "max-visible", "json"],
        "explain": ["profile", "bar", "catalog", "json"],
        "profiles": ["json"],
        "set": [
            "profile", "bar", "catalog", "order", "move", "customizable", "hide", "unhide", "select", "badge",
            "badge-add", "badge-text", "reset", "locking",
        ],
        "dump": ["profile", "output"],
        "restore": ["input", "mode", "dry-run", "max-drift", "locking"],
        "verify": [],
        "stat": ["json"],
        "backup": ["compact"],
        "sync": ["peer", "folder", "s3", "endpoint", "profile", "max-drift"],
        "erase": ["profile", "bar"],
        "help": [],
    ]

    /// The command names `tabkeep help` lists under "Commands:".
    func listedCommands() throws -> [String] {
        let overview = try Tool.ok(["help"])
        let lines = overview.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "Commands:"))
        return lines[(start + 1)...].prefix { !$0.isEmpty }.map { String($0.split(separator: " ")[0]) }
    }

    /// The rows of a `--help` table that start with `--NAME`: each flag's name and its help text
    /// (on the same line, or the next when the name is too long for the column).
    func flagRows(_ help: String) -> [String: String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var rows: [String: String] = [:]
        for (index, line) in lines.enumerated() where line.hasPrefix("  --") {
            // `  --name PLACEHOLDER  help`: two spaces or more part the synopsis from its help.
            let row = line.dropFirst(2)
            let name = String(row.prefix { $0 != " " }.dropFirst(2))
            if let gap = row.range(of: "  ") {
                rows[name] = row[gap.upperBound...].trimmingCharacters(in: .whitespaces)
            } else if index + 1 < lines.count, lines[index + 1].hasPrefix("      ") {
                rows[name] = lines[index + 1].trimmingCharacters(in: .whitespaces)
            } else {
                rows[name] = ""
            }
        }
        return rows
    }

    @Test func everyCommandsHelpListsEveryFlagItAcceptsWithItsHelp() throws {
        let commands = try listedCommands()
        #expect(Set(commands) == Set(Self.documentedFlags.keys))
        for command in commands {
            let help = try Tool.ok([command, "--help"])
            #expect(try Tool.ok(["help", command]) == help, "\(command)")
            let usage = try #require(help.split(separator: "\n").first.map(String.init))
            #expect(usage.hasPrefix("usage: tabkeep \(command)"), "\(command)")
            let inUsage = Set(usage.matches(of: /--([a-z0-9-]+)/).map { String($0.output.1) })
            let rows = flagRows(help)
            #expect(Set(rows.keys) == inUsage, "\(command): usage and table disagree")
            #expect(help.contains("\n  -h, --help "), "\(command)")
            #expect(
                Self.documentedFlags[command]!.isSubset(of: Set(rows.keys)), "\(command) lists \(rows.keys)")
            for (flag, text) in rows {
                #expect(text.count >= 8, "\(command) --\(flag) has no help: \"\(text)\"")
                // Accepted: the parse goes past it to the unknown flag after it (or refuses its value).
                let result = try Tool.run([command, "--\(flag)", "x", "--no-such-flag"])
                #expect(result.status == 2, "\(command) --\(flag)")
                #expect(
                    !result.stderr.contains("unknown flag --\(flag)"),
                    "\(command) --\(flag): \(result.stderr)")
            }
            let unknown = try Tool.run([command, "--no-such-flag"])
            #expect(
                unknown.status == 2 && unknown.stderr.contains("unknown flag --no-such-flag"), "\(command)")
        }
    }

    @Test func badFlagsAndValuesExitTwoNamingTheFlagAndChangeNothing() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        let folder = directory.sub("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Tool.ok(["set", store, "--profile", "alice", "--catalog", appTabsSpec, "--badge", "inbox=2"])
        try Tool.ok(["dump", store, "--output", directory.sub("a.tkdump")])
        let before = dumpBody(try Tool.ok(["dump", store]))
        let fresh = directory.sub("fresh")
        let longProfile = String(repeating: "p", count: 200)
        let cases: [(arguments: [String], flag: String)] = [
            (["set", store, "--profile", "alice", "--badge", "inbox=5", "--colour", "red"], "--colour"),
            (["set", store, "--profile", "alice", "--badge-add", "inbox=1", "--badge"], "--badge"),
            (["set", store, "--profile", "alice", "--badge", "inbox=5x"], "--badge"),
            (["set", store, "--profile", longProfile, "--badge", "inbox=5"], "--profile"),
            (
                ["set", fresh, "--profile", "alice", "--catalog", appTabsSpec, "--locking", "foo"],
                "--locking"
            ),
            (["sync", store, "--folder", folder, "--max-drift", "5x"], "--max-drift"),
            (["sync", store, "--folder=\(folder)", "--max-drift=5x"], "--max-drift"),
            (["sync", store, "--s3", "bucket/prefix"], "--s3"),
            (["sync", store, "--s3", "s3://b/p", "--endpoint", "ftp://host"], "--endpoint"),
            (["restore", fresh, "--input", directory.sub("a.tkdump"), "--locking", "foo"], "--locking"),
            (["restore", store, "--input", directory.sub("a.tkdump"), "--mode", "both"], "--mode"),
            (["show", store, "--profile", "alice", "--max-visible", "x"], "--max-visible"),
            (["erase", store, "--profile", "alice", "--bar", String(repeating: "b", count: 200)], "--bar"),
        ]
        for (arguments, flag) in cases {
            let result = try Tool.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
            #expect(
                first.hasPrefix("tabkeep: error: ") && first.contains(flag), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("usage: tabkeep \(arguments[0]) "), "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(!FileManager.default.fileExists(atPath: fresh), "\(arguments) created a store")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "\(arguments)")
        }
        #expect(dumpBody(try Tool.ok(["dump", store])) == before)
    }

    @Test func statAndExplainJSONParseWithTheirDocumentedKeys() throws {
        let directory = TemporaryDirectory()
        let store = directory.sub("store")
        // A badge text JSON must escape: a quote, a backslash, a newline, a control character, a slash.
        let text = "a\"b\\c\nd\u{1}e/f"
        try Tool.ok([
            "set", store, "--profile", "alice", "--catalog", appTabsSpec, "--move", "settings=1",
            "--badge-add", "inbox=3", "--badge-text", "help=\(text)", "--select", "inbox",
        ])
        let stat = try #require(
            try JSONSerialization.jsonObject(with: Data(try Tool.ok(["stat", store, "--json"]).utf8))
                as? [String: Any])
        let statKeys: Set<String> = [
            "schema", "replica", "locking", "pageSize", "depth", "entries", "mapSize", "usedBytes",
            "profiles",
            "bars", "documents", "versionVector", "identityHistory", "databases",
        ]
        #expect(Set(stat.keys) == statKeys)
        #expect(stat["profiles"] as? Int == 1 && stat["bars"] as? Int == 1)
        let vector = try #require(stat["versionVector"] as? [String: Int])
        #expect(vector.keys.contains(try #require(stat["replica"] as? String)))
        let databases = try #require(stat["databases"] as? [String: [String: Int]])
        #expect(!databases.isEmpty)
        for (_, figures) in databases {
            #expect(Set(figures.keys) == ["depth", "entries", "branchPages", "leafPages", "overflowPages"])
        }

        let explainText = try Tool.ok(["explain", store, "--profile", "alice", "--json"])
        #expect(explainText.split(separator: "\n").count == 1, "one line, the newline escaped")
        let explain = try #require(
            try JSONSerialization.jsonObject(with: Data(explainText.utf8)) as? [String: Any])
        let explainKeys: Set<String> = [
            "profile", "bar", "thisDevice", "catalog", "order", "hidden", "tabs", "selection", "clears",
            "notInCatalog",
        ]
        #expect(Set(explain.keys) == explainKeys)
        #expect(explain["profile"] as? String == "alice" && explain["bar"] as? String == "main")
        let tabs = try #require(explain["tabs"] as? [[String: Any]])
        #expect(tabs.count == 7)
        for tab in tabs {
            #expect(
                Set(tab.keys) == [
                    "tab", "index", "formerIDs", "place", "customizable", "hidden", "badge", "badgeText",
                ])
        }
        let help = try #require(tabs.first { $0["tab"] as? String == "help" })
        let badgeText = try #require(help["badgeText"] as? [String: Any])
        #expect(badgeText["text"] as? String == text)
        let by = try #require(badgeText["by"] as? [String: Any])
        #expect(Set(by.keys) == ["replica", "thisDevice", "at", "stamp", "sequence", "writtenAs"])
        #expect(by["thisDevice"] as? Bool == true)
        let selection = try #require(explain["selection"] as? [String: Any])
        #expect(selection["stored"] as? String == "inbox")
        let show = try #require(
            try JSONSerialization.jsonObject(
                with: Data(try Tool.ok(["show", store, "--profile", "alice", "--json"]).utf8))
                as? [String: Any])
        #expect(show["badgeTexts"] as? [String: String] == ["help": text])
    }
}
