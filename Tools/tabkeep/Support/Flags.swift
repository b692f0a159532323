import Foundation
import LMDBKit
import TabKeep
import ToolSupport

/// The flags and arguments several commands share, declared once with their help; a command's
/// own flags are declared in its command file.
enum Flags {
    static let store = Positional("STORE", help: "the store directory")
    static let profile = Option(
        name: "profile", placeholder: "P", help: "the user profile", parse: Values.profile)
    /// `--profile`, repeatable, for the commands that scope to some profiles.
    static let profiles = Option(
        name: "profile", placeholder: "P", help: "only this profile; without it, every profile",
        repeatable: true, parse: Values.profile)
    static let bar = Option(
        name: "bar", placeholder: "B", help: "the bar (default \"main\")", parse: Values.bar)
    static let catalog = Option(
        name: "catalog", placeholder: "LIST",
        help: "tab ids, each optionally TAB:PLACEMENT (fixed, movable, default, optional)",
        parse: Values.catalog)
    static let json = Switch(name: "json", help: "print one JSON value instead of text")
    static let maxDrift = Option(
        name: "max-drift", placeholder: "DURATION",
        help: "refuse entries stamped this far ahead of this clock (default 5m; 90s, 10m, 2h, or seconds)",
        parse: Values.duration)
    static let locking = Option(
        name: "locking", placeholder: "lmdb|per-transaction",
        help: "the locking mode of a store this command creates", parse: Values.locking)
}

/// A failure to report: exit 1.
struct ToolError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
