enum RestoreCommand {
    static let spec = CommandSpec(
        name: "restore", usage: "", summary: "", details: "", positionals: [], flags: [], run: { _ in 0 })
}
