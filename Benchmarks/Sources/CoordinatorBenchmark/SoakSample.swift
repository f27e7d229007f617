import Foundation

/// One 10-second sample of the soak: the coordinator's resident set at its end, and what the
/// phones and `/metrics` saw during it.
struct SoakSample: Sendable {
    /// Seconds since the measured run began, at the sample's end.
    var seconds: Double
    var residentBytes: Int
    /// Report → regions latencies (seconds) of the answers that arrived in the interval.
    var latencies: [Double]
    /// Reports whose answer did not come within 10 s, counted in the interval.
    var lost: Int
    /// `beaconfleet_coordinator_shed_sightings_batches_total` at the sample's end.
    var shedTotal: Double
    /// `beaconfleet_coordinator_clients` at the sample's end.
    var clients: Double

    var residentMiB: Double { Double(residentBytes) / 1_048_576 }
}

/// Minute `index` of the soak: its six samples folded.
struct SoakMinute: Sendable {
    var index: Int
    var residentMiB: Double
    var p50: Double
    var p99: Double
    var reports: Int
    var lost: Int
    var shed: Double
    var shedTotal: Double

    init(index: Int, samples: ArraySlice<SoakSample>, shedBefore: Double) {
        self.index = index
        let latencies = samples.flatMap(\.latencies)
        residentMiB = samples.last?.residentMiB ?? .nan
        p50 = percentile(latencies, 0.5) * 1000
        p99 = percentile(latencies, 0.99) * 1000
        reports = latencies.count
        lost = samples.reduce(0) { $0 + $1.lost }
        shedTotal = samples.last?.shedTotal ?? shedBefore
        shed = shedTotal - shedBefore
    }

    var line: String {
        String(
            format:
                "soak minute %2d: RSS %.1f MiB | report -> regions p50 %.2f ms, p99 %.2f ms (%d answers) | shed %.0f batches (%.0f in all) | lost %d",
            index + 1, residentMiB, p50, p99, reports, shed, shedTotal, lost)
    }
}

/// The least-squares slope of `points` (y per unit of x); NaN with fewer than two distinct x.
func leastSquaresSlope(_ points: [(x: Double, y: Double)]) -> Double {
    guard points.count >= 2 else { return .nan }
    let n = Double(points.count)
    let meanX = points.reduce(0) { $0 + $1.x } / n
    let meanY = points.reduce(0) { $0 + $1.y } / n
    let sxx = points.reduce(0) { $0 + ($1.x - meanX) * ($1.x - meanX) }
    let sxy = points.reduce(0) { $0 + ($1.x - meanX) * ($1.y - meanY) }
    return sxx > 0 ? sxy / sxx : .nan
}
