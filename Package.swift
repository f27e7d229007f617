// swift-tools-version: 6.1
import PackageDescription

/// How release builds link the executables on Linux: the Swift runtime and Foundation statically
/// (`-static-stdlib`; the libraries SwiftPM's `--static-swift-stdlib` would add are named, since
/// this flag reaches only the link) and as a non-PIE executable. No shared Swift libraries are
/// mapped whole into the process and no start-up relocations touch every page of data: that is
/// what `beaconfleet agent` costs before it execs `beaconfleet-agent` (about 24 MiB with shared
/// libraries, more than the agent's whole budget).
let staticReleaseLinkFlags = [
    "-static-stdlib", "-lCoreFoundation", "-l_FoundationICU", "-l_FoundationCShims", "-l_FoundationCollections",
    "-Xlinker", "-no-pie",
]

/// `beaconfleet-agent` also links with lld and `symbol-order.txt` (from `scripts/agent-symbol-order`):
/// the functions the agent runs packed together, so the kernel's 64 KiB fault-around maps hot code,
/// not its cold neighbours. With the static runtime, one malloc arena and a bound on payload in
/// flight, that keeps the agent's peak RSS at 16–18 MiB (budget 20 MB; `scripts/bench agent`).
let agentReleaseLinkFlags =
    staticReleaseLinkFlags + [
        "-use-ld=lld", "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/beaconfleet-agent/symbol-order.txt",
        "-Xlinker", "--no-warn-symbol-ordering",
    ]

/// The `Server` trait, on by default: every product of another package is a dependency only with
/// it. The phone library (BeaconKit, WireProtocol, RegionSync, RegionSyncTesting,
/// RegionSyncCoreLocation) depends on no other package, so an app that adds this package with
/// `traits: []` (docs/regionsync.md) resolves and checks out none of the server's packages;
/// this repository's own builds (`swift build`, `swift test`, scripts/, Benchmarks/) get it by default.
let server: Set<String> = ["Server"]

/// A product of another package that only the server side uses (and only on `platforms`, when
/// given): resolved, fetched and linked only with the `Server` trait. The MQTT transport's
/// Linux-only dependencies go through here too: `serverProduct("NIOPosix", "swift-nio", platforms: [.linux])`.
func serverProduct(_ name: String, _ package: String, platforms: [Platform]? = nil) -> Target.Dependency {
    .product(name: name, package: package, condition: platforms.map { .when(platforms: $0, traits: server) } ?? .when(traits: server))
}

/// The products of other packages that several targets depend on, named once.
let argumentParser = serverProduct("ArgumentParser", "swift-argument-parser")
let logging = serverProduct("Logging", "swift-log")
let serviceLifecycle = serverProduct("ServiceLifecycle", "swift-service-lifecycle")

let package = Package(
    name: "BeaconFleet",
    platforms: [.macOS(.v14), .iOS(.v16)],
    products: [
        .executable(name: "beaconfleet", targets: ["beaconfleet"]),
        .executable(name: "beaconfleet-agent", targets: ["beaconfleet-agent"]),
        .library(name: "BeaconKit", targets: ["BeaconKit"]),
        .library(name: "WireProtocol", targets: ["WireProtocol"]),
        .library(name: "Topology", targets: ["Topology"]),
        .library(name: "Planner", targets: ["Planner"]),
        .library(name: "Simulator", targets: ["Simulator"]),
        .library(name: "MQTT", targets: ["MQTT"]),
        .library(name: "MosquittoTesting", targets: ["MosquittoTesting"]),
        .library(name: "Agent", targets: ["Agent"]),
        .library(name: "Coordinator", targets: ["Coordinator"]),
        .library(name: "HomeAssistant", targets: ["HomeAssistant"]),
        .library(name: "LiveMap", targets: ["LiveMap"]),
        .library(name: "Credentials", targets: ["Credentials"]),
        // RegionSync: the phone-side library (issue 14), its fake iOS, Core Location and MQTT adapters.
        .library(name: "RegionSync", targets: ["RegionSync"]),
        .library(name: "RegionSyncTesting", targets: ["RegionSyncTesting"]),
        .library(name: "RegionSyncCoreLocation", targets: ["RegionSyncCoreLocation"]),
        .library(name: "RegionSyncMQTT", targets: ["RegionSyncMQTT"]),
    ],
    traits: [
        .trait(name: "Server", description: "The coordinator, the agent and their tools: every dependency on another package."),
        .default(enabledTraits: server),
    ],
    // Each used only through serverProduct (the Server trait). The MQTT transport's swift-nio and
    // swift-nio-ssl (Linux only) belong here too, likewise used only through serverProduct.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        // RegionSyncMQTT's byte stream on Linux only (Apple platforms use Network.framework).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The Etcd target talks to etcd's HTTP/JSON gateway (partitioned coordinators' membership,
        // leases, the fence); already in the graph through Hummingbird's test kit.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // C libraries, found through pkg-config and installed by apt.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .systemLibrary(
            name: "CBluetooth",
            pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]
        ),

        // Pure Swift libraries, from the bottom up.
        .target(name: "BeaconKit"),
        .target(name: "WireProtocol", dependencies: ["BeaconKit"]),
        .target(name: "Topology", dependencies: ["BeaconKit", "WireProtocol"]),
        .target(name: "Planner", dependencies: ["BeaconKit", "Topology"]),

        // Libraries with C or service dependencies.
        .target(
            name: "MQTT",
            dependencies: [
                "CMosquitto",
                logging,
                serviceLifecycle,
            ]
        ),
        // A real mosquitto broker in a child process, for tests, `beaconfleet demo` and the benchmarks.
        // Its own target so the gateway agent (which links MQTT) carries no test kit.
        .target(name: "MosquittoTesting", dependencies: ["MQTT"]),
        .target(
            name: "Agent",
            dependencies: [
                "BeaconKit", "WireProtocol", "MQTT", "CBluetooth",
                logging,
                serviceLifecycle,
            ]
        ),
        // Leases, create-if-absent keys and watches through etcd's HTTP/JSON gateway: what
        // partitioned coordinators decide membership and ownership with.
        .target(
            name: "Etcd",
            dependencies: [
                logging,
                serverProduct("AsyncHTTPClient", "async-http-client"),
                serverProduct("NIOCore", "swift-nio"),
                serverProduct("NIOHTTP1", "swift-nio"),
            ]
        ),
        // Home Assistant's MQTT discovery and client states, from any source of client snapshots
        // (the coordinator's core); see docs/home-assistant.md.
        .target(
            name: "HomeAssistant",
            dependencies: ["BeaconKit", "Topology", "WireProtocol", "MQTT", logging, serviceLifecycle]
        ),
        // The live map's markers, their bounded per-browser streams and its page: a real HTML file
        // compiled into the binary (MapPage), so the installed coordinator is one file, as
        // docs/coordinator.md installs it, with no resource bundle beside it.
        .target(
            name: "LiveMap",
            dependencies: ["WireProtocol"],
            resources: [.embedInCode("map.html")]
        ),
        // Per-phone broker credentials: mosquitto dynamic-security commands for a venue's topics
        // (`beaconfleet credentials`, docs/credentials.md).
        .target(name: "Credentials", dependencies: ["WireProtocol"]),
        .target(
            name: "Coordinator",
            dependencies: [
                "BeaconKit", "Planner", "WireProtocol", "MQTT", "Etcd", "HomeAssistant", "LiveMap",
                logging,
                serviceLifecycle,
                serverProduct("UnixSignals", "swift-service-lifecycle"),
                serverProduct("GRDB", "GRDB.swift"),
                serverProduct("Hummingbird", "hummingbird"),
                serverProduct("Metrics", "swift-metrics"),
                serverProduct("Prometheus", "swift-prometheus"),
            ]
        ),

        // Walking clients for demos, load and quality measurement: offline, or live over MQTT.
        .target(
            name: "Simulator",
            dependencies: ["Planner", "Coordinator", "WireProtocol", "MQTT", "RegionSync", "RegionSyncTesting", logging]
        ),

        // The agent's command line, shared by `beaconfleet agent` and `beaconfleet-agent`.
        .target(
            name: "AgentCommandLine",
            dependencies: [
                "Agent", "MQTT", "WireProtocol",
                argumentParser,
                logging,
            ]
        ),

        // The command-line tool: one thin subcommand per role.
        .executableTarget(
            name: "beaconfleet",
            dependencies: [
                "BeaconKit", "WireProtocol", "Topology", "Planner", "Simulator", "MQTT", "Etcd", "MosquittoTesting", "Agent",
                "AgentCommandLine",
                "Coordinator", "Credentials", "HomeAssistant",
                argumentParser,
                logging,
                serviceLifecycle,
            ],
            linkerSettings: [.unsafeFlags(staticReleaseLinkFlags, .when(platforms: [.linux], configuration: .release))]
        ),

        // The agent alone, for gateways: `beaconfleet agent` execs it when it is installed beside
        // `beaconfleet`. Its release link is tuned for the 20 MB memory budget (see below).
        .executableTarget(
            name: "beaconfleet-agent",
            dependencies: [
                "AgentCommandLine", "MQTT",
                argumentParser,
            ],
            exclude: ["symbol-order.txt"],
            linkerSettings: [.unsafeFlags(agentReleaseLinkFlags, .when(platforms: [.linux], configuration: .release))]
        ),

        // RegionSync, the phone-side library: pure Swift on WireProtocol (BeaconKit's types come
        // through it); the fake iOS monitor for tests and simulations; the Core Location adapters
        // (compiled only where CoreLocation exists); the phone's MQTT transport, a pure-Swift MQTT
        // 3.1.1 client over Network.framework on Apple platforms and SwiftNIO on Linux (no C library).
        .target(name: "RegionSync", dependencies: ["WireProtocol"]),
        .target(name: "RegionSyncTesting", dependencies: ["RegionSync"]),
        .target(name: "RegionSyncCoreLocation", dependencies: ["RegionSync"]),
        .target(
            name: "RegionSyncMQTT",
            dependencies: [
                "RegionSync",
                // Its byte stream on Linux (CI runs it against mosquitto); an app on an Apple platform,
                // or built without the Server trait, resolves none of these.
                serverProduct("NIOCore", "swift-nio", platforms: [.linux]),
                serverProduct("NIOPosix", "swift-nio", platforms: [.linux]),
                serverProduct("NIOHTTP1", "swift-nio", platforms: [.linux]),
                serverProduct("NIOWebSocket", "swift-nio", platforms: [.linux]),
                serverProduct("NIOTLS", "swift-nio", platforms: [.linux]),
                serverProduct("NIOSSL", "swift-nio-ssl", platforms: [.linux]),
            ]
        ),
        .testTarget(
            name: "RegionSyncTests",
            dependencies: [
                "RegionSync", "RegionSyncTesting", "RegionSyncMQTT", "WireProtocol", "Topology", "MQTT", "MosquittoTesting", "TestSupport",
                "Coordinator", "Credentials", logging, serviceLifecycle,
            ]
        ),

        // Tests. TestSupport locates ../shared/data and the built executables, and runs brokers and clients for a test's scope.
        .target(
            name: "TestSupport",
            dependencies: ["MQTT", "MosquittoTesting"],
            path: "Tests/TestSupport"
        ),
        .testTarget(name: "BeaconKitTests", dependencies: ["BeaconKit", "Topology", "TestSupport"]),
        .testTarget(name: "WireProtocolTests", dependencies: ["BeaconKit", "WireProtocol", "Topology"]),
        .testTarget(name: "TopologyTests", dependencies: ["BeaconKit", "Topology", "TestSupport"]),
        .testTarget(name: "PlannerTests", dependencies: ["Planner", "Simulator", "BeaconKit", "WireProtocol", "TestSupport"]),
        .testTarget(
            name: "MQTTTests",
            dependencies: [
                "MQTT", "MosquittoTesting", "TestSupport",
                logging,
                serviceLifecycle,
            ]
        ),
        .testTarget(
            name: "AgentTests",
            dependencies: ["Agent", "BeaconKit", "Coordinator", "Topology", "WireProtocol", "MQTT", "MosquittoTesting", "TestSupport"]),
        .testTarget(
            name: "CoordinatorTests",
            dependencies: ["BeaconKit", "Coordinator", "HomeAssistant", "LiveMap", "Etcd", "Simulator", "MosquittoTesting", "TestSupport"]),
        // The subcommands through the built `beaconfleet` (scripts/test builds it first).
        .testTarget(name: "CommandLineTests", dependencies: ["MQTT", "MosquittoTesting", "WireProtocol", "TestSupport"]),
    ]
)

/// Every target is compiled in the Swift 6 language mode (strict concurrency is on by default there)
/// with the same upcoming features; set here once rather than on each target.
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
