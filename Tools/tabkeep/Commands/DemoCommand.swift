enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo", usage: "", summary: "", details: "", positionals: [], flags: [], run: { _ in 0 })
}
