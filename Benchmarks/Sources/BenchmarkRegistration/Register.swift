import Benchmark
import BenchmarkCases

/// Registers workload `name` (BenchmarkCases) as two package-benchmark benchmarks, `name` (the
/// figure) and `name-baseline`, measured in the same run on the same input. Wall clock and CPU are
/// shown; the checked-in thresholds (`Thresholds/`) hold what is repeatable: the mallocs. The
/// instructions are shown where the machine has hardware counters (this one has none); callgrind
/// counts them everywhere, and they are the gate (`scripts/bench`).
public func registerWorkloadPair(_ name: String) {
    let pair: WorkloadPair
    do {
        pair = try BenchmarkCases.make(name, small: false)
    } catch {
        fatalError("\(name): \(error)")
    }
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .instructions],
        timeUnits: .microseconds,
        warmupIterations: 1,
        maxDuration: .seconds(10),
        maxIterations: 10,
        // Small counts move by a few allocations from run to run (23 or 25 reading a capture):
        // 10 % lets those pass and still catches an allocation a report, sighting or query.
        thresholds: [.mallocCountTotal: .init(relative: [.p90: 10.0])]
    )
    for (benchmarkName, workload) in [(name, pair.figure), ("\(name)-baseline", pair.baseline)] {
        Benchmark(benchmarkName, configuration: configuration) { benchmark in
            blackHole(workload.run())
        }
    }
}
