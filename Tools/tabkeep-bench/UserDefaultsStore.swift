import Foundation

/// The UserDefaults contender: a suite of its own, one key per profile holding the same document
/// bytes. On Linux, Foundation keeps the suite in memory and persists it to a plist under
/// `$XDG_CONFIG_HOME` (pointed at the bench directory before the first use), rewriting the whole
/// plist on `synchronize()`.
final class UserDefaultsStore {
    private let defaults: UserDefaults
    let suite: String

    init(suite: String) throws {
        guard let defaults = UserDefaults(suiteName: suite) else {
            throw BenchError("UserDefaults suite \(suite)")
        }
        self.defaults = defaults
        self.suite = suite
    }

    static func key(_ index: Int) -> String { "tabs." + Fixture.profileName(index) }

    func load(count: Int, value: (Int) -> [UInt8]) throws {
        for index in 0..<count { defaults.set(Data(value(index)), forKey: Self.key(index)) }
        guard defaults.synchronize() else { throw BenchError("UserDefaults synchronize failed") }
    }

    @inline(__always)
    func get(_ key: String) throws -> Int {
        guard let data = defaults.data(forKey: key) else { throw BenchError("UserDefaults: no \(key)") }
        return data.count
    }

    /// Sets the value and asks Foundation to persist it now.
    func write(_ key: String, _ value: [UInt8]) throws {
        defaults.set(Data(value), forKey: key)
        guard defaults.synchronize() else { throw BenchError("UserDefaults synchronize failed") }
    }

    /// The plist Foundation wrote for the suite, if it is where Linux Foundation puts it.
    func plistBytes(configHome: String) -> Int? {
        let manager = FileManager.default
        guard let found = manager.enumerator(atPath: configHome) else { return nil }
        for case let path as String in found where path.hasSuffix(suite + ".plist") {
            return (try? manager.attributesOfItem(atPath: configHome + "/" + path)[.size] as? Int) ?? nil
        }
        return nil
    }
}
