// swift-tools-version:6.0
import Foundation
import PackageDescription

// One fixed client of the row decoder, built against any state of the library, for
// Benchmarks/bisect-decodable.sh: STREAMQLITE_LIB is the library's source folder (a folder
// named streamqlite holding one commit's tree). Only API that has not changed since
// c8a4a63 is used: Database(path:), rows(T.self, sql), the cursor's next().
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let lib = ProcessInfo.processInfo.environment["STREAMQLITE_LIB"]
    ?? here.deletingLastPathComponent().deletingLastPathComponent().path
let package = Package(
    name: "DecodableBisect",
    dependencies: [.package(path: lib)],
    targets: [
        .systemLibrary(name: "CSQLiteBisect", path: "Sources/CSQLiteBisect"),
        .executableTarget(
            name: "DecodableBisect",
            dependencies: [
                "CSQLiteBisect",
                .product(name: "StreamQLite", package: URL(fileURLWithPath: lib).standardized.lastPathComponent.lowercased()),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
