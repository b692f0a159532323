enum SyncCommand {
    static let spec = CommandSpec(
        name: "sync", usage: "", summary: "", details: "", positionals: [], flags: [], run: { _ in 0 })
}
