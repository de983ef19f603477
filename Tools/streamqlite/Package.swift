// swift-tools-version:6.0
import Foundation
import PackageDescription

// `streamqlite`, the command-line tool: imports, queries and weekly reports through the
// library's public API (see docs/cli.md). It lives in its own package so that the library
// keeps no dependencies for its users; swift-argument-parser is this package's only one.
//   swift build -c release && .build/release/streamqlite --help
// CLIBench times the library calls the tool wraps (BENCHMARKS.md, "Command-line tool").
// SwiftPM names a path dependency after its directory (the checkout may not be called StreamQLite).
let libraryPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let package = Package(
    name: "streamqlite-cli",
    products: [
        .executable(name: "streamqlite", targets: ["StreamQLiteCLI"]),
        .executable(name: "CLIBench", targets: ["CLIBench"]),
    ],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "StreamQLiteCLI",
            dependencies: [
                .product(name: "StreamQLite", package: libraryPackage),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "CLIBench",
            dependencies: [.product(name: "StreamQLite", package: libraryPackage)],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
