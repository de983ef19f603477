// swift-tools-version:6.1
import CompilerPluginSupport
import PackageDescription
import Foundation

// StreamQLite: the Swift companion library of the StreamQLite SQLite extension.
// MIT licence (LICENSE). Tested on Debian 12 (Linux); no `platforms:` are declared
// because no Apple platform is built or tested.
// The extension's C sources (Extension/src) are compiled into the CStreamQLite
// target with SQLITE_CORE, so every connection the library opens gets the SQL
// functions without loading a file. The system's SQLite and ICU are reached as
// system-library targets (module maps in Sources/CSQLite and Sources/CICU, found
// through pkg-config; Debian: libsqlite3-dev, libicu-dev); zlib and libzstd are linked
// by name (Debian: zlib1g-dev, libzstd-dev). No unsafe flags, so
// other packages can depend on this one by URL and version.
let package = Package(
    name: "StreamQLite",
    products: [
        .library(name: "StreamQLite", targets: ["StreamQLite"]),
        // The @RowCodable macro, with the package trait "Macros" (docs/swift/macro.md).
        .library(name: "StreamQLiteMacros", targets: ["StreamQLiteMacros"]),
    ],
    traits: [
        .trait(name: "Macros", description: "The @RowCodable macro (product StreamQLiteMacros); builds swift-syntax."),
    ],
    dependencies: [
        // Used only with the trait "Macros", which is off unless asked for: a package that does not
        // enable it resolves, fetches and builds neither (scripts/check-package-consumer.sh checks).
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
            ],
            // gzip and zstd input (Extension/src/sq_decompress.c; Debian: zlib1g-dev, libzstd-dev)
            linkerSettings: [.linkedLibrary("z"), .linkedLibrary("zstd")]
        ),
        .target(
            name: "StreamQLite",
            dependencies: ["CStreamQLite"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .macro(
            name: "StreamQLiteMacrosPlugin",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax", condition: .when(traits: ["Macros"])),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax", condition: .when(traits: ["Macros"])),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "StreamQLiteMacros",
            dependencies: ["StreamQLite", .target(name: "StreamQLiteMacrosPlugin", condition: .when(traits: ["Macros"]))],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "StreamQLiteMacrosTests",
            dependencies: [
                "StreamQLiteMacros",
                .target(name: "StreamQLiteMacrosPlugin", condition: .when(traits: ["Macros"])),
                .product(name: "MacroTesting", package: "swift-macro-testing", condition: .when(traits: ["Macros"])),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The failing VFS of the fault tests (make test-c's test_faults uses it too).
        .target(
            name: "CFaultVFS",
            dependencies: ["CSQLite"],
            path: "Tests/CFaultVFS"
        ),
        .testTarget(
            name: "StreamQLiteTests",
            dependencies: ["StreamQLite", "CFaultVFS"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)

// `make docs` only: the DocC plugin, so that the library has no dependencies for its users
// (STREAMQLITE_DOCS is set by the Makefile, which builds in its own .build-docs).
if ProcessInfo.processInfo.environment["STREAMQLITE_DOCS"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
