// swift-tools-version:6.1
import Foundation
import PackageDescription

// Side-by-side benchmarks of StreamQLite against the raw C API and GRDB.
//   cd Benchmarks && swift run -c release StreamQLiteBenchmarks
// Add further benchmark executables to `benchmarkTargets`.
// SwiftPM names a path dependency after its directory (the checkout may not be called StreamQLite).
let libraryPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()
let benchmarkTargets = ["JSONBenchmarks", "CodableBenchmarks"]

// The @RowCodable variants use the real macro, through StreamQLite's package trait "Macros",
// which builds swift-syntax for the macro in the configuration of the build (release: tens of
// minutes on a loaded machine). STREAMQLITE_MACRO_PLUGIN=<path to a StreamQLiteMacrosPlugin
// built by `make test-macros`, in .build-macros/debug> uses that executable instead: the code the
// macro writes is the same, the benchmark declares the macro itself (ROWCODABLE_PLUGIN).
let macroPlugin = ProcessInfo.processInfo.environment["STREAMQLITE_MACRO_PLUGIN"]
let macroSettings: [SwiftSetting] = macroPlugin.map {
    [.unsafeFlags(["-load-plugin-executable", "\($0)#StreamQLiteMacrosPlugin"]), .define("ROWCODABLE_PLUGIN")]
} ?? []

let package = Package(
    name: "StreamQLiteBenchmarks",
    dependencies: [
        .package(path: "..", traits: macroPlugin == nil ? ["Macros"] : []),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // CSVBenchmarks compares with these (without GitHub access: see BENCHMARKS.md, "CSV in Swift", for a local mirror)
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
        // One import a process, timed from outside (Extension/bench/bench-scale.sh); StreamQLite only.
        .executableTarget(
            name: "ImportOnce",
            dependencies: [.product(name: "StreamQLite", package: libraryPackage)],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "StreamQLiteBenchmarks",
            dependencies: [
                .product(name: "StreamQLite", package: libraryPackage),
                .product(name: "StreamQLiteMacros", package: libraryPackage),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)] + macroSettings
        ),
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
