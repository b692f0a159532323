enum DumpCommand {
    static let spec = CommandSpec(
        name: "dump", usage: "", summary: "", details: "", positionals: [], flags: [], run: { _ in 0 })
}
