enum VerifyCommand {
    static let spec = CommandSpec(
        name: "verify", usage: "", summary: "", details: "", positionals: [], flags: [], run: { _ in 0 })
}
