// swift-tools-version: 6.1
// Benchmarks live in their own package so that CI's test build never compiles them (or SwiftGraph,
// or package-benchmark).
//
// - The in-process benchmarks (decode, estimator, topology and planner, coordinator ingest) run on
//   ordo-one/benchmark (package-benchmark, `Benchmarks/<Name>Benchmarks/`), each figure beside its baseline in
//   the same run; `Thresholds/` holds their checked-in p90 thresholds (as swift-nio's do).
// - The same workloads (`BenchmarkCases`) run once each under `valgrind --tool=callgrind` through
//   `InstructionCount`: instructions, repeatable on a busy machine, are the gate (scripts/bench).
// - The broker-bound benchmarks (MQTT, agent, coordinator end to end, latency, memory, stream,
//   soak) stay plain executables.
// Every benchmark writes a JSON result to `Results/`; `scripts/bench doc` makes docs/benchmarks.md.
import PackageDescription

let beaconFleet = { (name: String) -> Target.Dependency in .product(name: name, package: "BeaconFleet") }
let benchmark = Target.Dependency.product(name: "Benchmark", package: "benchmark")
let registration = Target.Dependency.target(name: "BenchmarkRegistration")
let benchmarkPlugin = Target.PluginUsage.plugin(name: "BenchmarkPlugin", package: "benchmark")

/// A package-benchmark suite in Benchmarks/NAME: it registers BenchmarkCases workloads.
@MainActor func benchmarkSuite(_ name: String) -> Target {
    .executableTarget(name: name, dependencies: [registration, benchmark], path: "Benchmarks/\(name)", plugins: [benchmarkPlugin])
}

let package = Package(
    name: "BeaconFleetBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "BeaconFleet", path: ".."),
        .package(url: "https://github.com/davecom/SwiftGraph", from: "4.0.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // What every benchmark shares: the verdict on a figure (never "met" on a figure that is no
        // measurement), the heap in use, and the JSON result each one writes.
        .target(name: "BenchmarkSupport", dependencies: ["CMallocInfo"]),
        .target(name: "CMallocInfo"),
        // The in-process workloads, each a figure and the baseline it is read against; used by the
        // package-benchmark targets, InstructionCount and CoordinatorBenchmark (its batches).
        .target(
            name: "BenchmarkCases",
            dependencies: [
                "BenchmarkSupport", beaconFleet("BeaconKit"), beaconFleet("WireProtocol"), beaconFleet("Topology"),
                beaconFleet("Planner"), beaconFleet("Coordinator"), .product(name: "SwiftGraph", package: "SwiftGraph"),
            ]
        ),
        // Each workload pair as two package-benchmark benchmarks (a target of its own, so that
        // InstructionCount links neither package-benchmark nor its malloc interposer).
        .target(name: "BenchmarkRegistration", dependencies: ["BenchmarkCases", benchmark]),
        // Runs one workload inside `countedRegion`, for callgrind's `--toggle-collect`.
        .executableTarget(name: "InstructionCount", dependencies: ["BenchmarkCases"]),
        benchmarkSuite("DecodeBenchmarks"),
        benchmarkSuite("EstimatorBenchmarks"),
        benchmarkSuite("TopologyBenchmarks"),
        benchmarkSuite("IngestBenchmarks"),
        .executableTarget(
            name: "MQTTBenchmark",
            dependencies: ["BenchmarkSupport", beaconFleet("MQTT"), beaconFleet("MosquittoTesting"), "MosquittoBaseline"]
        ),
        // The plain C libmosquitto publisher MQTTBenchmark compares the Swift wrapper against.
        .target(name: "MosquittoBaseline", linkerSettings: [.linkedLibrary("mosquitto"), .linkedLibrary("pthread")]),
        // Runs a command and reports its own peak RSS (AgentBenchmark measures the real agent binary with it).
        .executableTarget(name: "PeakMemory"),
        .executableTarget(
            name: "AgentBenchmark",
            dependencies: [
                "BenchmarkSupport", beaconFleet("Agent"), beaconFleet("MQTT"), beaconFleet("MosquittoTesting"), beaconFleet("BeaconKit"),
                beaconFleet("WireProtocol"),
            ]
        ),
        .executableTarget(
            name: "CoordinatorBenchmark",
            dependencies: [
                "BenchmarkSupport", "BenchmarkCases", beaconFleet("Coordinator"), beaconFleet("MQTT"), beaconFleet("MosquittoTesting"),
                beaconFleet("WireProtocol"), beaconFleet("HomeAssistant"),
            ]
        ),
    ]
)
