import TabKeep
import ToolSupport

/// `tabkeep verify`: check a store's records against each other.
enum VerifyCommand {
    static let command = Command(
        name: "verify",
        summary: "Check a store: documents decode and hold their invariants; dots, versions and meta agree.",
        details: """
            Runs TabKeepStore.verify() in one snapshot: every document decodes and holds its
            invariants; every dot of every document has a `dots` row under its profile naming its bar,
            and every row names a document holding that dot (or, for a clear that lost to another, a
            document with a clear); no dot is past its profile's vector (`versions`); every stored
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
