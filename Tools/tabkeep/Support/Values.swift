import LMDBKit
import TabKeep
import ToolSupport

/// Turns flag values into TabKeep types; anything malformed is a ``UsageError`` naming the flag.
enum Values {
    @Sendable static func profile(_ text: String) throws(UsageError) -> ProfileID {
        do { return try ProfileID(text) } catch { throw UsageError("--profile: \(error)") }
    }

    /// A duration: whole seconds, or a number with s, m or h (`90s`, `10m`, `2h`).
    @Sendable static func duration(_ text: String) throws(UsageError) -> Duration {
        var digits = Substring(text)
        var unit: Int64 = 1
        if let last = text.last, let scale = ["s": Int64(1), "m": 60, "h": 3_600][String(last)] {
            digits = digits.dropLast()
            unit = scale
        }
        guard let number = Int64(digits), number >= 0, number <= 1_000_000_000 / unit else {
            throw UsageError("--max-drift: \"\(text)\" is not a duration such as 300, 90s, 10m or 2h")
        }
        return .seconds(number * unit)
    }

    @Sendable static func locking(_ text: String) throws(UsageError) -> Locking {
        guard let locking = Locking(rawValue: text) else {
            throw UsageError("--locking must be lmdb or per-transaction, not \"\(text)\"")
        }
        return locking
    }

    @Sendable static func bar(_ text: String) throws(UsageError) -> BarID {
        do { return try BarID(text) } catch { throw UsageError("--bar: \(error)") }
    }

    static func tab(_ text: String, flag: String) throws(UsageError) -> TabID {
        do { return try TabID(text) } catch { throw UsageError("--\(flag): \(error)") }
    }

    /// `a,b,c` as tab ids.
    static func tabs(_ text: String, flag: String) throws(UsageError) -> [TabID] {
        var result: [TabID] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            result.append(try tab(String(part), flag: flag))
        }
        return result
    }

    /// `LIST`: tab ids, each optionally `TAB:PLACEMENT`.
    @Sendable static func catalog(_ text: String) throws(UsageError) -> Catalog {
        var tabs: [Catalog.Tab] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            var id = String(part)
            var placement = Catalog.Placement.default
            if let colon = part.lastIndex(of: ":") {
                let name = String(part[part.index(after: colon)...])
                guard let given = Catalog.Placement(rawValue: name) else {
                    throw UsageError(
                        "--catalog: unknown placement \"\(name)\" (fixed, movable, default, optional)")
                }
                placement = given
                id = String(part[..<colon])
            }
            tabs.append(Catalog.Tab(try tab(id, flag: "catalog"), placement: placement))
        }
        do { return try Catalog(tabs: tabs) } catch { throw UsageError("--catalog: \(error)") }
    }

    /// `TAB=VALUE`, split at the first `=`.
    static func pair(_ text: String, flag: String) throws(UsageError) -> TabValue<String> {
        guard let equals = text.firstIndex(of: "=") else {
            throw UsageError("--\(flag) needs TAB=VALUE, not \"\(text)\"")
        }
        return TabValue(
            tab: try tab(String(text[..<equals]), flag: flag),
            value: String(text[text.index(after: equals)...]))
    }

    /// `TAB=N` with an integer N.
    static func tabNumber(_ text: String, flag: String) throws(UsageError) -> TabValue<Int> {
        let pair = try pair(text, flag: flag)
        guard let number = Int(pair.value) else {
            throw UsageError("--\(flag): \"\(pair.value)\" is not a whole number")
        }
        return TabValue(tab: pair.tab, value: number)
    }

    static func positiveInt(_ text: String, flag: String) throws(UsageError) -> Int {
        guard let number = Int(text), number > 0 else {
            throw UsageError("--\(flag): \"\(text)\" is not a positive whole number")
        }
        return number
    }
}

/// A `TAB=VALUE` flag's value.
struct TabValue<Value: Sendable>: Sendable {
    var tab: TabID
    var value: Value
}
