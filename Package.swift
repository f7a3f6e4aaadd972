// swift-tools-version:6.0
// Timeline: an event-sourced domain core for apps that keep timelines of life events.
import PackageDescription

let package = Package(
    name: "Timeline",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "TimelineCore", targets: ["TimelineCore"]),
        .library(name: "TimelineProjections", targets: ["TimelineProjections"]),
        .library(name: "TimelineKit", targets: ["TimelineKit"]),
        .executable(name: "timeline", targets: ["timeline"]),
        .executable(name: "timeline-bench", targets: ["timeline-bench"]),
        .executable(name: "timeline-live", targets: ["TerminalFrontEnd"]),
        .executable(name: "timeline-stress", targets: ["timeline-stress"]),
    ],
    targets: [
        .target(name: "TimelineCore", path: "Sources/TimelineCore"),
        .target(name: "TimelineProjections", dependencies: ["TimelineCore"], path: "Projections"),
        .target(name: "TimelineKit", dependencies: ["TimelineCore", "TimelineProjections"], path: "Sources/TimelineKit"),
        .target(name: "TimelineCommandLine", dependencies: ["TimelineKit"], path: "Sources/TimelineCommandLine"),
        .executableTarget(name: "timeline", dependencies: ["TimelineCommandLine"], path: "Sources/timeline"),
        .executableTarget(name: "timeline-bench", dependencies: ["TimelineKit", "TimelineTestSupport"], path: "Sources/timeline-bench"),
        .executableTarget(name: "timeline-stress", dependencies: ["TimelineKit", "TimelineTestSupport"], path: "Sources/timeline-stress"),
        .executableTarget(name: "TerminalFrontEnd", dependencies: ["TimelineKit"], path: "Examples/TerminalFrontEnd"),
        .target(name: "SwiftUISketch", dependencies: ["TimelineKit"], path: "Examples/SwiftUISketch"),
        .target(name: "TimelineTestSupport", path: "Sources/TimelineTestSupport"),
        .testTarget(name: "TimelineCoreTests", dependencies: ["TimelineCore", "TimelineTestSupport"], path: "Tests/TimelineCoreTests"),
        .testTarget(name: "TimelineProjectionsTests", dependencies: ["TimelineProjections", "TimelineTestSupport"], path: "Tests/TimelineProjectionsTests"),
        .testTarget(name: "TimelineKitTests", dependencies: ["TimelineKit", "TimelineTestSupport", "timeline-stress"], path: "Tests/TimelineKitTests"),
        .testTarget(
            name: "TimelineCommandLineTests",
            dependencies: ["TimelineCommandLine", "TimelineTestSupport", "timeline", "timeline-stress", "timeline-bench"],
            path: "Tests/TimelineCommandLineTests"
        ),
    ]
)
