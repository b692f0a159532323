import Foundation
import TabKeep
import TabKeepDump
import ToolSupport

/// `tabkeep dump`: the whole store (or some profiles) as JSON Lines.
enum DumpCommand {
    static let output = Option(
        name: "output", placeholder: "FILE", help: "write to FILE (mode 0600) instead of stdout")

    static let command = Command(
        name: "dump",
        summary: "Write a store (or some profiles) as a checked JSON Lines dump.",
        details: """
            Streams, in flat memory, from one consistent snapshot: a header line, one line per
            registered catalog, one line per document (its readable layout and every entry with
            stamp, origin and dot, so a restored store still syncs), and a trailer with the record
            count and a CRC-32. The same store dumps to the same lines apart from header and trailer.
            Writes to stdout, or to FILE (mode 0600, written to a temporary file and renamed).
            --profile may be repeated; catalogs are always included.

            Example:
              tabkeep dump ~/stores/app --output app.tkdump
              tabkeep dump ~/stores/app --profile alice | less
            """,
        syntax: CommandSyntax(
            positionals: [Flags.store], flags: [.optional(Flags.profiles), .optional(output)]),
        run: run)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let profiles = arguments.has(Flags.profiles) ? Set(arguments.all(Flags.profiles)) : nil
        let store = try Stores.readOnly(arguments.value(of: Flags.store))
        if let path = arguments[output] {
            let file = try PrivateFileWriter(path: path)
            let records = try store.dump(profiles: profiles) { try file.write($0) }
            try file.commit()
            Output.note("dumped \(records) records to \(path)")
        } else {
            try store.dump(profiles: profiles) { try FileDescriptorOutput.writeAll(1, $0, name: "stdout") }
        }
        return 0
    }
}
