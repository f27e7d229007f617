/// One measured piece of work: `run()` does it over `items` items (reports, estimates, queries,
/// sightings) and answers a checksum, so that the optimizer cannot drop the work.
public struct Workload {
    /// What one item is, for "per report", "per estimate".
    public var unit: String
    /// How many items one `run()` covers.
    public var items: Int
    public var run: () -> Int

    public init(unit: String, items: Int, run: @escaping () -> Int) {
        self.unit = unit
        self.items = items
        self.run = run
    }
}

/// A figure and the baseline it is read against, measured in the same run on the same input.
public struct WorkloadPair {
    public var figure: Workload
    public var baseline: Workload

    public init(figure: Workload, baseline: Workload) {
        self.figure = figure
        self.baseline = baseline
    }
}

/// The instructions callgrind counts for a workload are the ones executed inside this function:
/// InstructionCount runs `body` here, and scripts/bench runs it under
/// `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*countedRegion*'`.
@inline(never)
public func countedRegion(_ body: () -> Int) -> Int {
    body()
}

/// The in-process workloads by name, as `scripts/bench` names them.
public enum BenchmarkCases {
    public static let names = ["decode", "estimator", "topology", "planner", "ingest", "ingest-flush"]

    /// The named workload pair. `small` sizes it for callgrind (about 50 times slower than native):
    /// fewer items, the same kind of input.
    public static func make(_ name: String, small: Bool) throws -> WorkloadPair {
        switch name {
        case "decode": return try DecodeCase.make(reports: small ? 20_000 : 500_000)
        case "estimator": return try EstimatorCase.make(venue: "museum", tags: small ? 10 : 50, seconds: small ? 10 : 30)
        case "topology": return try TopologyCase.make(regions: small ? 10_000 : 100_000, queries: small ? 200 : 2_000).nearest
        case "planner": return try TopologyCase.make(regions: small ? 10_000 : 100_000, queries: small ? 200 : 2_000).planner
        case "ingest": return try IngestCase.make(windows: small ? 2 : 10)
        case "ingest-flush": return try IngestCase.make(windows: small ? 2 : 10, production: true)
        default: throw BenchmarkCaseError("unknown workload '\(name)' (\(names.joined(separator: ", ")))")
        }
    }
}

public struct BenchmarkCaseError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
