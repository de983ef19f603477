// swift-tools-version:6.0
import CompilerPluginSupport
import PackageDescription

// StreamQLite: the Swift companion library of the StreamQLite SQLite extension.
// The extension's C sources (Extension/src) are compiled into the CStreamQLite
// target with SQLITE_CORE, so every connection the library opens gets the SQL
// functions without loading a file. The system's SQLite and ICU are reached as
// system-library targets (module maps in Sources/CSQLite and Sources/CICU, found
// through pkg-config; Debian: libsqlite3-dev, libicu-dev). No unsafe flags, so
// other packages can depend on this one by URL and version.
let package = Package(
    name: "StreamQLite",
    products: [
        .library(name: "StreamQLite", targets: ["StreamQLite"]),
        // The @RowCodable macro: only packages that use this product resolve and build swift-syntax.
        .library(name: "StreamQLiteMacros", targets: ["StreamQLiteMacros"]),
    ],
    dependencies: [
        // For the StreamQLiteMacros product and its tests only (target-based resolution: a package
        // depending on the StreamQLite product alone fetches neither; scripts/check-package-consumer.sh).
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.1"..<"604.0.0"),
        .package(url: "https://github.com/pointfreeco/swift-macro-testing", exact: "0.7.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CICU",
            pkgConfig: "icu-i18n",
            providers: [.apt(["libicu-dev"])]
        ),
        .target(
            name: "CStreamQLite",
            dependencies: ["CSQLite", "CICU"],
            path: "Extension",
            exclude: ["test", "fuzz", "bench"],
            sources: ["src"],
            publicHeadersPath: "include",
            cSettings: [
                .define("SQLITE_CORE"),
                .define("_GNU_SOURCE"),
                .headerSearchPath("src"),
            ]
        ),
        .target(
            name: "StreamQLite",
            dependencies: ["CStreamQLite"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .macro(
            name: "StreamQLiteMacrosPlugin",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "StreamQLiteMacros",
            dependencies: ["StreamQLite", "StreamQLiteMacrosPlugin"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "StreamQLiteMacrosTests",
            dependencies: [
                "StreamQLiteMacros",
                "StreamQLiteMacrosPlugin",
                .product(name: "MacroTesting", package: "swift-macro-testing"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "StreamQLiteTests",
            dependencies: ["StreamQLite"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
