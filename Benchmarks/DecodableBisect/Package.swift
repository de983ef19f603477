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
// STREAMQLITE_MACRO_PLUGIN=<a built StreamQLiteMacrosPlugin-tool> adds the @RowCodable
// variants (the macro's plugin loaded directly, as Benchmarks/Package.swift does; only for a
// library that has the macro).
let macroPlugin = ProcessInfo.processInfo.environment["STREAMQLITE_MACRO_PLUGIN"]
let macroSettings: [SwiftSetting] = macroPlugin.map {
    [.unsafeFlags(["-load-plugin-executable", "\($0)#StreamQLiteMacrosPlugin"]), .define("ROWCODABLE")]
} ?? []
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
            swiftSettings: [.swiftLanguageMode(.v6)] + macroSettings
        ),
    ]
)
