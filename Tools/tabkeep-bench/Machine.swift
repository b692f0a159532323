import Foundation

/// The machine a run measured: printed in the report's header so figures are never quoted bare.
struct Machine: Codable {
    var cpu: String
    var cores: Int
    var memoryGiB: Double
    var kernel: String
    var swift: String

    static func current() -> Machine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let totalKiB =
            meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { $0.split(separator: " ").dropFirst().first }
            .flatMap { Double($0) } ?? 0
        let kernel =
            (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
        return Machine(
            cpu: model, cores: ProcessInfo.processInfo.activeProcessorCount,
            memoryGiB: (totalKiB / 1_048_576 * 10).rounded() / 10, kernel: "Linux " + kernel,
            swift: swiftVersion())
    }

    var summary: String {
        "\(cpu), \(cores) cores, \(memoryGiB) GiB RAM, \(kernel), \(swift)"
    }

    /// The compiler this binary was built with, as far as the binary itself knows.
    private static func swiftVersion() -> String {
        #if swift(>=6.3)
            return "Swift 6.3"
        #elseif swift(>=6.2)
            return "Swift 6.2"
        #elseif swift(>=6.1)
            return "Swift 6.1"
        #else
            return "Swift 6.0"
        #endif
    }
}
