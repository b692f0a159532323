import Foundation
import TabKeep
import TabKeepDump
import TabKeepSync
import ToolSupport

/// `tabkeep demo`: a one-minute walkthrough of what TabKeep does.
enum DemoCommand {
    static let store = Option(
        name: "store", placeholder: "DIR", help: "where the stores go (default: a new temporary directory)")

    static let command = Command(
        name: "demo",
        summary: "Walk through TabKeep in a minute: two devices, customizing, a sync, a dump, a restore.",
        details: """
            Makes two device stores (phone and tablet) in DIR, or in a fresh temporary directory,
            registers a seven-tab catalog, customizes the bar on the phone (reorder, customizable
            subset, hide, select a tab under More, badges), makes concurrent edits on the tablet,
            syncs them, draws each device's bar, dumps the phone, restores the dump into a third
            store and verifies it. Running it again in the same DIR starts clean (it replaces only
            its own phone, tablet and restored stores and demo.tkdump there).

            Example:
              tabkeep demo
              tabkeep demo --store /tmp/tabkeep-demo
            """,
        syntax: CommandSyntax(flags: [.optional(store)]), run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let files = FileManager.default
        let directory: String
        if let given = arguments[store] {
            directory = given
        } else {
            directory =
                files.temporaryDirectory.appendingPathComponent("tabkeep-demo-\(UUID().uuidString.prefix(8))")
                .path
        }
        let phonePath = directory + "/phone"
        let tabletPath = directory + "/tablet"
        let restoredPath = directory + "/restored"
        let dumpPath = directory + "/demo.tkdump"
        for path in [phonePath, tabletPath, restoredPath, dumpPath] where files.fileExists(atPath: path) {
            try files.removeItem(atPath: path)
        }
        try files.createDirectory(atPath: directory, withIntermediateDirectories: true)

        func tab(_ id: String) throws -> TabID { try TabID(id) }
        func draw(_ name: String, _ store: TabKeepStore, _ profile: ProfileID) throws {
            print("  \(name):")
            for line in BarDrawing.lines(try store.layout(profile), maxVisible: 5) { print("  \(line)") }
        }

        print("TabKeep demo: one user, two devices, one tab bar. Stores in \(directory)")
        print("")
        let catalog = try Catalog(tabs: [
            Catalog.Tab(try tab("home"), placement: .fixed),
            Catalog.Tab(try tab("inbox")), Catalog.Tab(try tab("search")), Catalog.Tab(try tab("library")),
            Catalog.Tab(try tab("settings")), Catalog.Tab(try tab("help")),
            Catalog.Tab(try tab("labs"), placement: .optional),
        ])
        let alice = try ProfileID("alice")
        let phone = try TabKeepStore(path: phonePath)
        let tablet = try TabKeepStore(path: tabletPath)
        try phone.registerCatalog(catalog)
        try tablet.registerCatalog(catalog)
        print("1. The app offers seven tabs: home (fixed), inbox, search, library, settings, help,")
        print("   labs (optional, hidden until chosen). Five fit on the bar; the rest go under More.")
        try draw("phone, before anything is stored", phone, alice)
        print("")

        print("2. On the phone, alice customizes: settings to second place, only inbox, search, library and")
        print(
            "   settings customizable, labs shown, search hidden, help (under More) selected, inbox badge +3,"
        )
        print("   help badge \"new\".")
        try phone.edit(
            alice,
            [
                .move(try tab("settings"), to: 1),
                .setCustomizable([
                    try tab("inbox"), try tab("search"), try tab("library"), try tab("settings"),
                ]),
                .setHidden(try tab("labs"), false),
                .setHidden(try tab("search"), true),
                .select(.tab(try tab("help"))),
                .addToBadge(try tab("inbox"), 3),
                .setBadgeText(try tab("help"), "new"),
            ])
        try draw("phone", phone, alice)
        print("")

        print("3. Meanwhile, offline, on the tablet: help moved next to home, inbox badge +2, library")
        print("   selected (later than the phone's selection).")
        try tablet.edit(
            alice,
            [
                .move(try tab("help"), to: 1),
                .addToBadge(try tab("inbox"), 2),
                .select(.tab(try tab("library"))),
            ])
        try draw("tablet", tablet, alice)
        print("")

        let exchange = try TabKeepSync.sync(phone, tablet)
        print(
            "4. Sync phone <-> tablet: \(exchange.documentsToSecond) document sent, \(exchange.documentsToFirst) received."
                + " Both moves survive,"
        )
        print("   the badge counts add up (3 + 2), the later selection wins, and both devices agree:")
        try draw("phone", phone, alice)
        try draw("tablet", tablet, alice)
        let same = try phone.layout(alice) == tablet.layout(alice)
        print("   same layout on both: \(same ? "yes" : "NO")")
        print("")

        let file = try PrivateFileWriter(path: dumpPath)
        let records = try phone.dump { try file.write($0) }
        try file.commit()
        print(
            "5. Dump the phone: \(records) records (a catalog and a document) in demo.tkdump, JSON Lines with a CRC-32."
        )
        let restored = try TabKeepStore(path: restoredPath)
        let (_, report) = try restored.restore(fromDumpAt: dumpPath, mode: .replace)
        print(
            "6. Restore it into a third store: \(report.added) document added, \(report.catalogs) catalog registered."
        )
        try draw("restored", restored, alice)
        let verified = try restored.verify()
        print(
            "7. Verify the restored store: \(verified.isSound ? "ok" : "\(verified.problems.count) problems") (\(verified.figures))."
        )
        for problem in verified.problems { print("   problem: \(problem)") }
        print("")
        print("Try next:")
        print("  tabkeep show \(phonePath) --profile alice --json")
        print("  tabkeep set \(phonePath) --profile alice --badge-add inbox=-1")
        print("  tabkeep stat \(restoredPath)")
        return verified.isSound && same ? 0 : 1
    }
}
