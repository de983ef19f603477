// swift-tools-version:6.0
import PackageDescription

// The tasks API of ../TasksServer implemented the usual way: Hummingbird 2 + GRDB
// (DatabasePool: WAL, parallel reads, one writer) + Foundation's JSONEncoder/JSONDecoder.
// It exists to be measured against ../TasksServer (bench/run.sh there); the input types,
// their validation, the query parameters and the error bodies come from TasksAPI, so both
// servers promise the same API.
let package = Package(
    name: "TasksServerGRDB",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: "../TasksServer"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "TasksServerGRDB",
            dependencies: [
                .product(name: "TasksAPI", package: "TasksServer"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
