// swift-tools-version:6.0
import Foundation
import PackageDescription

// The tasks backend: an HTTP JSON service served straight from SQLite by StreamQLite
// and Hummingbird 2 (see README.md beside this file):
//   swift run -c release TasksServer --port 8080 --db tasks.db --sample 10000
// PoolHopBench measures what a DatabasePool read costs besides SQLite.
// TasksAPI holds what the API promises whatever serves it (input types with their
// validation, error bodies, query parameters); ../TasksServerGRDB, the same routes the
// usual way (GRDB + JSONEncoder/JSONDecoder) for the benchmark, uses it too.
// SwiftPM names a path dependency after its directory (the checkout may not be called StreamQLite).
let libraryPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let package = Package(
    name: "TasksServer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "TasksServer", targets: ["TasksServer"]),
        .library(name: "TasksAPI", targets: ["TasksAPI"]),
        .executable(name: "PoolHopBench", targets: ["PoolHopBench"]),
    ],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.20.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
    ],
    targets: [
        .target(
            name: "TasksAPI",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "TasksServer",
            dependencies: [
                "TasksAPI",
                .product(name: "StreamQLite", package: libraryPackage),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // What a DatabasePool read costs besides SQLite (Sources/PoolHopBench/main.swift).
        .executableTarget(
            name: "PoolHopBench",
            dependencies: [.product(name: "StreamQLite", package: libraryPackage)],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
