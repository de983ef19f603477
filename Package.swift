// swift-tools-version:6.0
import PackageDescription

// StreamQLite: the Swift companion library of the StreamQLite SQLite extension.
// The extension's C sources (Extension/src) are compiled into the CStreamQLite
// target with SQLITE_CORE, so every connection the library opens gets the SQL
// functions without loading a file. Dependencies: the system's libsqlite3 and
// libicu only (Debian: libsqlite3-dev, libicu-dev).
let package = Package(
    name: "StreamQLite",
    products: [
        .library(name: "StreamQLite", targets: ["StreamQLite"]),
    ],
    targets: [
        .target(
            name: "CStreamQLite",
            path: "Extension",
            exclude: ["test", "fuzz", "bench"],
            sources: ["src"],
            publicHeadersPath: "include",
            cSettings: [
                .define("SQLITE_CORE"),
                .define("_GNU_SOURCE"),
                .headerSearchPath("src"),
                .unsafeFlags(["-O2"]),
            ],
            linkerSettings: [
                .linkedLibrary("sqlite3"),
                .linkedLibrary("icui18n"),
                .linkedLibrary("icuuc"),
                .linkedLibrary("icudata"),
            ]
        ),
        .target(
            name: "StreamQLite",
            dependencies: ["CStreamQLite"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "StreamQLiteTests",
            dependencies: ["StreamQLite"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
