import TabKeep
import ToolSupport

/// `tabkeep verify`: check a store's records against each other.
enum VerifyCommand {
    static let command = Command(
        name: "verify",
        summary: "Check a store: documents decode and hold their invariants; dots, versions and meta agree.",
        details: """
            Runs TabKeepStore.verify() in one snapshot: every document decodes and holds its
            invariants; no dot is held by two documents of a profile, nor past its profile's vector
            (`versions`); no dot record is left (schema 6 keeps a document's dots in the document; a
            store of schema 5 or older, read where it is, has its `dots` rows checked: each dot of a
            document has one naming its bar, each row a document holding its dot or a clear); every stored
            layout has its document and, where it names the registered catalog, is that document's
            layout; `meta` is sane (schema, replica id, clock); every registered catalog decodes.
            Writes nothing. Lists each problem; exit 1 if there is any.

            Example:
              tabkeep verify ~/stores/app
            """,
        syntax: CommandSyntax(positionals: [Flags.store]), run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let store = try Stores.readOnly(arguments.value(of: Flags.store))
        let report = try store.verify()
        for problem in report.problems { print("problem: \(problem)") }
        if report.isSound {
            print("ok: \(report.figures)")
            return 0
        }
        Output.error(
            "\(report.problems.count) problem\(report.problems.count == 1 ? "" : "s") found (\(report.figures))"
        )
        return 1
    }
}
