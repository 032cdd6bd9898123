// swift-tools-version:5.10
// Tresor: a password vault of individually encrypted JSON entries in a git repository.
import PackageDescription

// libgit2, libcrypto, ncurses, libsodium, libargon2 and zlib are bound on the first call of one of their functions rather than when the program
// starts (Sources/CLateBinding), where its stubs are written (the same condition is in late-binding.c and
// CNcurses/shim.h); elsewhere they are linked as usual.
#if os(Linux) && arch(x86_64)
let lateBinding = true
#else
let lateBinding = false
#endif

let package = Package(
    name: "Tresor",
    // The library is meant for apps on a phone and a desktop as well as for the CLI; this package is built and tested
    // on Linux (the CLI's terminal and process code is Linux/Darwin only and not part of the library products).
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .executable(name: "tresor", targets: ["tresor"]),
        // The vault: open, unlock, read and change entries in transactions, sync (docs/library.md).
        .library(name: "Tresor", targets: ["Tresor"]),
        // Other managers' formats in and out (pass, KeePass, Bitwarden, 1Password, browsers), for an app's import.
        .library(name: "TresorInterchange", targets: ["TresorInterchange"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Tests only (they write zip archives and compare the CSV reader with CSV.swift); nothing the products link.
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        // `swift package generate-documentation --target Tresor` (DocC); a plugin only, nothing links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .systemLibrary(name: "CSodium", pkgConfig: lateBinding ? nil : "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CGit2", pkgConfig: lateBinding ? nil : "libgit2", providers: [.apt(["libgit2-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: lateBinding ? nil : "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "CLateBinding"),
        .systemLibrary(name: "CProcess", path: "Sources/CProcess"),
        .systemLibrary(name: "CArgon2", pkgConfig: lateBinding ? nil : "libargon2", providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(name: "CGzip", pkgConfig: lateBinding ? nil : "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Where the libraries are not bound late, they are linked by name too (not only through pkg-config's flags).
        .target(name: "TresorCore", dependencies: ["CSodium", "CCrypto", "CLateBinding", "CProcess", "CArgon2"],
                linkerSettings: lateBinding ? [] : [.linkedLibrary("sodium"), .linkedLibrary("argon2")]),
        // The data files as a resource bundle for the programs built with the tests and benchmarks; tresor itself does
        // not link it (its bundle accessor imports the full Foundation) and reads share/tresor when installed.
        .target(name: "TresorData", resources: [.copy("Resources/eff_large_wordlist.txt"), .copy("Resources/zxcvbn"), .copy("Resources/libgit2"),
                                                       .copy("Resources/README.md")]),
        .target(name: "TresorGit", dependencies: ["CGit2", "CGzip", "CCrypto", "CLateBinding", "CProcess"],
                linkerSettings: lateBinding ? [] : [.linkedLibrary("z")]),
        .target(
            name: "Tresor", dependencies: ["TresorCore", "TresorGit", "TresorInterchange"],
            // Test failpoints exist in debug builds only; the release binary never honours them.
            swiftSettings: [.define("TRESOR_FAILPOINTS", .when(configuration: .debug))]
        ),
        .target(name: "TresorInterchange", dependencies: ["TresorCore", "CGzip"],
                linkerSettings: lateBinding ? [] : [.linkedLibrary("z")]),
        .systemLibrary(name: "CNcurses", providers: [.apt(["libncurses-dev"])]),
        .target(name: "TresorTerminal", dependencies: ["CNcurses", "CLateBinding"],
                linkerSettings: lateBinding ? [] : [.linkedLibrary("ncursesw")]),
        .executableTarget(
            name: "tresor",
            dependencies: ["Tresor", "TresorTerminal", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The library's face as an app sees it: open, unlock, add in a transaction, sync (README "The library").
        .executableTarget(name: "tresor-example", dependencies: ["Tresor"], path: "Examples/QuickStart"),
        .executableTarget(name: "tresor-bench", dependencies: ["Tresor", "TresorGit", "TresorData"], path: "Benchmarks/Sources"),
        .executableTarget(name: "tresor-ui-bench", dependencies: ["Tresor", "TresorCore", "TresorData"], path: "Benchmarks/UI"),
        .testTarget(name: "TresorCoreTests", dependencies: ["TresorCore", "TestSupport"]),
        .target(name: "TestSupport", dependencies: ["TresorData"], path: "Tests/TestSupport"),
        .testTarget(name: "TresorGitTests", dependencies: ["TresorGit", "TestSupport"]),
        .testTarget(name: "TresorTests", dependencies: ["Tresor", "TestSupport"]),
        .testTarget(name: "tresorTests", dependencies: ["tresor", "Tresor", "TestSupport"]),
        // The tests build 1PUX archives with ZIPFoundation and read CSV with CSV.swift, which the library used before it
        // had its own readers.
        .testTarget(name: "TresorInterchangeTests", dependencies: [
            "TresorInterchange", "TestSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            .product(name: "CSV", package: "CSV.swift"),
        ]),
    ]
)
