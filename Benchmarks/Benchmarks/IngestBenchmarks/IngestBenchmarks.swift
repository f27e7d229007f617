// `ingest`: see BenchmarkCases for the workload, its figure and its baseline.
import Benchmark
import BenchmarkRegistration

let benchmarks: @Sendable () -> Void = {
    registerWorkloadPair("ingest")
    registerWorkloadPair("ingest-flush")
}
