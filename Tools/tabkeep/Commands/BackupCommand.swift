enum BackupCommand {
    static let spec = CommandSpec(
        name: "backup", usage: "", summary: "", details: "", positionals: [], flags: [], run: { _ in 0 })
}
