// swift-tools-version: 6.0
// Benchmarks live in their own package so that CI's test build never compiles them (or SwiftGraph).
// Run them all with `scripts/bench` (release build); each prints its figure, its baseline measured
// in the same run, and the ratio between the two.
import PackageDescription

let package = Package(
    name: "BeaconFleetBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "BeaconFleet", path: ".."),
        .package(url: "https://github.com/davecom/SwiftGraph", from: "4.0.0"),
    ],
    targets: [
        // What every benchmark shares: the verdict on a figure (never "met" on a figure that is no
        // measurement) and the heap in use.
        .target(name: "BenchmarkSupport", dependencies: ["CMallocInfo"]),
        .target(name: "CMallocInfo"),
        .executableTarget(name: "DecodeBenchmark", dependencies: ["BenchmarkSupport", .product(name: "BeaconKit", package: "BeaconFleet")]),
        .executableTarget(
            name: "MQTTBenchmark",
            dependencies: [.product(name: "MQTT", package: "BeaconFleet"), .product(name: "MosquittoTesting", package: "BeaconFleet"), "MosquittoBaseline", "BenchmarkSupport"]
        ),
        // The plain C libmosquitto publisher MQTTBenchmark compares the Swift wrapper against.
        .target(name: "MosquittoBaseline", linkerSettings: [.linkedLibrary("mosquitto"), .linkedLibrary("pthread")]),
        // Runs a command and reports its own peak RSS (AgentBenchmark measures the real agent binary with it).
        .executableTarget(name: "PeakMemory"),
        .executableTarget(name: "AgentBenchmark", dependencies: ["BenchmarkSupport", .product(name: "Agent", package: "BeaconFleet"), .product(name: "MQTT", package: "BeaconFleet"), .product(name: "MosquittoTesting", package: "BeaconFleet"), .product(name: "BeaconKit", package: "BeaconFleet"), .product(name: "WireProtocol", package: "BeaconFleet")]),
        .executableTarget(
            name: "TopologyBenchmark",
            dependencies: [
                "BenchmarkSupport", .product(name: "Topology", package: "BeaconFleet"), .product(name: "Planner", package: "BeaconFleet"),
                .product(name: "SwiftGraph", package: "SwiftGraph"),
            ]
        ),
        // One position estimate, the production arithmetic against the original libm formula.
        .executableTarget(
            name: "EstimatorBenchmark",
            dependencies: ["BenchmarkSupport", .product(name: "Planner", package: "BeaconFleet"), .product(name: "Topology", package: "BeaconFleet")]
        ),
        .executableTarget(
            name: "CoordinatorBenchmark",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Coordinator", package: "BeaconFleet"), .product(name: "MQTT", package: "BeaconFleet"),
                .product(name: "MosquittoTesting", package: "BeaconFleet"), .product(name: "WireProtocol", package: "BeaconFleet"),
            ]
        ),
    ]
)
