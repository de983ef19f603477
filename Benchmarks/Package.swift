// swift-tools-version:6.0
import Foundation
import PackageDescription

// Side-by-side benchmarks of StreamQLite against the raw C API and GRDB.
//   cd Benchmarks && swift run -c release StreamQLiteBenchmarks
// Add further benchmark executables to `benchmarkTargets`.
// SwiftPM names a path dependency after its directory (the checkout may not be called StreamQLite).
let libraryPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()
let benchmarkTargets = ["StreamQLiteBenchmarks", "JSONBenchmarks", "CodableBenchmarks"]

let package = Package(
    name: "StreamQLiteBenchmarks",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // CSVBenchmarks compares with these (without GitHub access: see BENCHMARKS.md, CSV, for a local mirror)
        .package(url: "https://github.com/swiftcsv/SwiftCSV", exact: "0.10.0"),
        .package(url: "https://github.com/yaslab/CSV.swift", exact: "2.5.2"),
    ],
    targets: benchmarkTargets.map { name in
        .executableTarget(
            name: name,
            dependencies: [
                .product(name: "StreamQLite", package: libraryPackage),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    } + [
        .executableTarget(
            name: "CSVBenchmarks",
            dependencies: [
                .product(name: "StreamQLite", package: libraryPackage),
                .product(name: "SwiftCSV", package: "SwiftCSV"),
                .product(name: "CSV", package: "CSV.swift"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
