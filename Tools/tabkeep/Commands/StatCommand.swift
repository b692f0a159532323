enum StatCommand {
    static let spec = CommandSpec(
        name: "stat", usage: "", summary: "", details: "", positionals: [], flags: [], run: { _ in 0 })
}
