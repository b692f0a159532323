import Foundation
import TabKeep

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What an app without a store would write: the resolved layout of one profile as JSON.
struct StoredLayout: Codable {
    var order: [String]
    var hidden: [String]
    var customizable: [String]
    var selection: String?
    var badges: [String: Int]
    var badgeTexts: [String: String]

    init(_ layout: Layout) {
        order = layout.order.map(\.rawValue)
        hidden = layout.hidden.map(\.rawValue)
        customizable = layout.customizable.map(\.rawValue)
        switch layout.selection {
        case .tab(let tab): selection = tab.rawValue
        case .more: selection = "more"
        case .none: selection = nil
        }
        badges = Dictionary(uniqueKeysWithValues: layout.badges.map { ($0.key.rawValue, $0.value) })
        badgeTexts = Dictionary(uniqueKeysWithValues: layout.badgeTexts.map { ($0.key.rawValue, $0.value) })
    }
}

/// The JSON-files contender: one file per profile, read with `JSONDecoder`, written atomically
/// (temporary file, fsync, rename, fsync of the directory).
final class JSONFiles {
    let directory: String
    private let decoder = JSONDecoder()
    private let encoder = JSONEncoder()

    init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func path(_ index: Int) -> String { directory + "/" + Fixture.profileName(index) + ".json" }

    func load(count: Int, layout: (Int) -> StoredLayout) throws {
        for index in 0..<count {
            let data = try encoder.encode(layout(index))
            guard FileManager.default.createFile(atPath: path(index), contents: data) else {
                throw BenchError("cannot write \(path(index))")
            }
        }
    }

    @inline(__always)
    func get(_ path: String) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try decoder.decode(StoredLayout.self, from: data).order.count
    }

    func save(_ path: String, _ layout: StoredLayout) throws {
        let data = try encoder.encode(layout)
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw BenchError("open \(temporary): errno \(errno)") }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == data.count, synced == 0 else {
            throw BenchError("write \(temporary): errno \(errno)")
        }
        guard rename(temporary, path) == 0 else { throw BenchError("rename \(temporary): errno \(errno)") }
        let directoryFD = open(directory, O_RDONLY)
        defer { close(directoryFD) }
        guard directoryFD >= 0, fsync(directoryFD) == 0 else {
            throw BenchError("fsync \(directory): errno \(errno)")
        }
    }
}
