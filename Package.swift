// swift-tools-version:6.2
// Timeline: an event-sourced domain core for apps that keep timelines of life events.
//
// tools-version 6.2: package traits need 6.1, and `isolated deinit` (the view model) the
// 6.2 compiler.
import PackageDescription

/// Settings every target shares, so that a target added later cannot quietly differ.
let shared: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    // `any P` for every existential, and members visible only through a module's own imports.
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Timeline",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "TimelineCore", targets: ["TimelineCore"]),
        .library(name: "TimelineProjections", targets: ["TimelineProjections"]),
        .library(name: "TimelineKit", targets: ["TimelineKit"]),
        .library(name: "TimelineRender", targets: ["TimelineRender"]),
        .executable(name: "timeline", targets: ["timeline"]),
        .executable(name: "timeline-live", targets: ["TerminalFrontEnd"]),
    ],
    traits: [
        .trait(name: "PostgreSQL", description: "The event log on PostgreSQL (links libpq from the system's packages)."),
    ],
    targets: [
        // The platform's C library behind one import (Glibc, Musl or Darwin); not a product.
        .target(name: "SystemShim", path: "Sources/SystemShim", swiftSettings: shared),
        .target(
            name: "TimelineCore", dependencies: ["SystemShim", "CStringSearch", "CChecksum"], path: "Sources/TimelineCore",
            swiftSettings: shared),
        .target(name: "TimelineProjections", dependencies: ["TimelineCore"], path: "Projections", swiftSettings: shared),
        .target(
            name: "TimelineKit",
            dependencies: [
                "TimelineCore", "TimelineProjections", "SystemShim",
                // `LogLocation` opens a log named by a postgresql:// URL only with the trait.
                .target(name: "TimelinePostgres", condition: .when(traits: ["PostgreSQL"])),
            ],
            path: "Sources/TimelineKit", swiftSettings: shared),
        .target(
            name: "TimelineRender", dependencies: ["TimelineProjections", "TimelineKit"], path: "Sources/TimelineRender",
            swiftSettings: shared),
        .target(
            name: "TimelineCommandLine",
            dependencies: [
                "SystemShim", "TimelineKit", "TimelineRender",
                .target(name: "TimelinePostgres", condition: .when(traits: ["PostgreSQL"])),
            ],
            path: "Sources/TimelineCommandLine", swiftSettings: shared),
        // libpq, PostgreSQL's C client library, from the system's packages (Debian: libpq-dev);
        // built and linked only with the trait `PostgreSQL`.
        // The C library's `memmem`, declared for every platform (no code of its own).
        .systemLibrary(name: "CStringSearch", path: "Sources/CStringSearch"),
        // CRC-32C with the processor's instruction (SSE 4.2, ARM's CRC extension), inline C.
        .systemLibrary(name: "CChecksum", path: "Sources/CChecksum"),
        .systemLibrary(
            name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        .target(
            name: "TimelinePostgres",
            dependencies: [
                "TimelineCore", "SystemShim", .target(name: "CLibPQ", condition: .when(traits: ["PostgreSQL"])),
            ],
            path: "Sources/TimelinePostgres", swiftSettings: shared),
        .executableTarget(
            name: "timeline", dependencies: ["SystemShim", "TimelineCommandLine"], path: "Sources/timeline", swiftSettings: shared),
        // The benchmark is a target CI runs (`swift run -c release timeline-bench`), not a product.
        .executableTarget(
            name: "timeline-bench",
            dependencies: [
                "TimelineKit", "TimelineTestSupport", "SystemShim",
                .target(name: "TimelinePostgres", condition: .when(traits: ["PostgreSQL"])),
            ],
            path: "Sources/timeline-bench", swiftSettings: shared),
        .executableTarget(
            name: "timeline-stress", dependencies: ["TimelineKit", "TimelineTestSupport", "SystemShim"],
            path: "Sources/timeline-stress", swiftSettings: shared),
        .executableTarget(
            name: "TerminalFrontEnd",
            dependencies: ["TimelineKit"],
            path: "Examples/TerminalFrontEnd",
            swiftSettings: shared),
        .target(
            name: "SwiftUISketch", dependencies: ["TimelineKit"], path: "Examples/SwiftUISketch", swiftSettings: shared),
        .target(
            name: "TimelineTestSupport", dependencies: ["SystemShim"], path: "Sources/TimelineTestSupport",
            swiftSettings: shared),
        // The checks every kind of event log must pass, shared by the test targets of each kind.
        .target(
            name: "EventLogContract", dependencies: ["TimelineCore"], path: "Sources/EventLogContract",
            swiftSettings: shared),
        .testTarget(
            name: "TimelineCoreTests",
            dependencies: ["TimelineCore", "TimelineTestSupport", "EventLogContract", "SystemShim"],
            path: "Tests/TimelineCoreTests", swiftSettings: shared),
        .testTarget(
            name: "TimelinePostgresTests",
            dependencies: [
                "TimelineCore", "TimelineTestSupport", "EventLogContract", "timeline",
                .target(name: "TimelinePostgres", condition: .when(traits: ["PostgreSQL"])),
            ],
            path: "Tests/TimelinePostgresTests", swiftSettings: shared),
        .testTarget(
            name: "TimelineProjectionsTests", dependencies: ["TimelineProjections", "TimelineTestSupport"],
            path: "Tests/TimelineProjectionsTests", swiftSettings: shared),
        .testTarget(
            name: "TimelineKitTests", dependencies: ["TimelineKit", "TimelineTestSupport", "timeline-stress"],
            path: "Tests/TimelineKitTests", swiftSettings: shared),
        // A front end's tests: they import the library as an app does, without `@testable`,
        // so everything they use is public API.
        .testTarget(
            name: "TimelineFrontEndTests", dependencies: ["TimelineKit"], path: "Tests/TimelineFrontEndTests",
            swiftSettings: shared),
        .testTarget(
            name: "TimelineRenderTests",
            dependencies: ["TimelineRender", "TimelineCore", "TimelineProjections", "TimelineKit", "TimelineTestSupport"],
            path: "Tests/TimelineRenderTests", exclude: ["Golden"], swiftSettings: shared),
        .testTarget(
            name: "TimelineCommandLineTests",
            dependencies: ["SystemShim", "TimelineCommandLine", "TimelineTestSupport", "timeline", "timeline-stress"],
            path: "Tests/TimelineCommandLineTests", swiftSettings: shared
        ),
    ]
)
