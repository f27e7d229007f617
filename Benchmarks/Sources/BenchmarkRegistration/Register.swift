import Benchmark
import BenchmarkCases

/// Registers workload `name` (BenchmarkCases) as two package-benchmark benchmarks, `name` (the
/// figure) and `name-baseline`, measured in the same run on the same input. Wall clock and CPU are
/// shown; the checked-in thresholds (`Thresholds/`) hold what is repeatable: the mallocs, and the
/// instructions where the machine has hardware counters (callgrind counts them where it does not:
/// `scripts/bench`).
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
        thresholds: [.mallocCountTotal: .init(relative: [.p90: 1.0]), .instructions: .init(relative: [.p90: 2.0])]
    )
    for (benchmarkName, workload) in [(name, pair.figure), ("\(name)-baseline", pair.baseline)] {
        Benchmark(benchmarkName, configuration: configuration) { benchmark in
            blackHole(workload.run())
        }
    }
}
