// EstimatorBenchmark: the cost of one position estimate, the coordinator's once-a-second work per
// tracked client, with the production arithmetic (`PositionArithmetic.fast`) against the original
// libm formula (`.libm`) in the same run, on the same pre-generated evidence; and how far the two
// answers are apart (each step started from the same state, so differences do not compound).
//
// Walk: tags walk between random waypoints at 1.2 m/s; each second every gateway of their level
// within 30 m hears them with the log-distance model plus 4 dB of Gaussian noise, and the strongest
// 8 (the coordinator's `maximumObservations`) are one update's evidence.
//
// Run: scripts/bench estimator      or   Benchmarks/.build/release/EstimatorBenchmark [museum mall …]
import BenchmarkSupport
import Foundation
import Planner
import Topology

/// One tag's evidence for each second of its walk.
typealias Walk = [[PositionObservation]]

func walks(topology: Topology, estimator: PositionEstimator, tags: Int, seconds: Int, seed: UInt64) -> [Walk] {
    var random = SplitMix64(seed: seed)
    func uniform() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
    func gaussian() -> Double { (-2 * log(max(uniform(), 1e-300))).squareRoot() * cos(2 * .pi * uniform()) }
    let points = topology.waypoints.map(\.position)
    let gateways = topology.gateways.compactMap { gateway in
        estimator.anchorIndex(ofGateway: gateway.id).map { (gateway, $0) }
    }
    return (0..<tags).map { _ in
        var at = points[random.int(in: 0...(points.count - 1))]
        var to = points[random.int(in: 0...(points.count - 1))]
        var walk: Walk = []
        for _ in 0..<seconds {
            var heard: [PositionObservation] = []
            for (gateway, anchor) in gateways where gateway.position.level == at.level {
                let dx = gateway.position.x - at.x
                let dy = gateway.position.y - at.y
                let dz = (gateway.height ?? 2.5) - 1.2
                let distance = (dx * dx + dy * dy + dz * dz).squareRoot()
                guard distance < 30 else { continue }
                let rssi = -59 - 20 * log10(max(distance, 0.5)) + 4 * gaussian()
                heard.append(PositionObservation(anchor: anchor, rssi: rssi.rounded()))
            }
            walk.append(Array(heard.sorted { $0.rssi > $1.rssi }.prefix(8)))
            let dx = to.x - at.x
            let dy = to.y - at.y
            let left = (dx * dx + dy * dy).squareRoot()
            if left <= 1.2 || to.level != at.level {
                at = to.level == at.level ? to : at
                to = points[random.int(in: 0...(points.count - 1))]
            } else {
                at = VenuePoint(x: at.x + dx / left * 1.2, y: at.y + dy / left * 1.2, level: at.level)
            }
        }
        return walk
    }
}

/// Nanoseconds per update over every walk, each tag's filter chained second by second.
func timePerEstimate(_ estimator: PositionEstimator, _ walks: [Walk]) -> (nanoseconds: Double, checksum: Double) {
    var checksum = 0.0
    var updates = 0
    let start = nanoseconds()
    for walk in walks {
        var state: PositionState? = nil
        for (second, evidence) in walk.enumerated() {
            guard let estimate = estimator.update(state, observations: evidence, at: Date(timeIntervalSinceReferenceDate: Double(second)))
            else { continue }
            state = estimate.state
            checksum += estimate.x + estimate.y
            updates += 1
        }
    }
    return (Double(nanoseconds() - start) / Double(max(updates, 1)), checksum)
}

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let venues = CommandLine.arguments.count > 1 ? Array(CommandLine.arguments.dropFirst()) : ["museum", "mall"]
print("EstimatorBenchmark: one position update (≤ 8 gateways, walking tags), .fast against .libm in the same run")
for name in venues {
    let topology = try Topology.load(directory: root.appendingPathComponent("topology/\(name)"))
    let fast = try PositionEstimator(topology: topology, configuration: PositionEstimatorConfiguration(venue: topology))
    var reference = fast
    reference.arithmetic = PositionArithmetic.libm
    let evidence = walks(topology: topology, estimator: fast, tags: 200, seconds: 30, seed: 16)

    // Agreement: both from the reference's state at every step.
    var worstMove = 0.0
    var worstConfidence = 0.0
    var differentLevel = 0
    var compared = 0
    for walk in evidence {
        var state: PositionState? = nil
        for (second, observations) in walk.enumerated() {
            let time = Date(timeIntervalSinceReferenceDate: Double(second))
            let exact = reference.update(state, observations: observations, at: time)
            let quick = fast.update(state, observations: observations, at: time)
            guard let exact, let quick else {
                if (exact == nil) != (quick == nil) { differentLevel += 1 }
                continue
            }
            compared += 1
            if exact.level != quick.level { differentLevel += 1 }
            let dx: Double = exact.x - quick.x
            let dy: Double = exact.y - quick.y
            worstMove = max(worstMove, (dx * dx + dy * dy).squareRoot())
            worstConfidence = max(worstConfidence, abs(exact.confidence - quick.confidence))
            state = exact.state
        }
    }

    var ratios: [Double] = []
    var fastTimes: [Double] = []
    var referenceTimes: [Double] = []
    for _ in 0..<3 {  // alternate, so a neighbour's load hits both sides alike
        let slow = timePerEstimate(reference, evidence)
        let quick = timePerEstimate(fast, evidence)
        referenceTimes.append(slow.nanoseconds)
        fastTimes.append(quick.nanoseconds)
        ratios.append(slow.nanoseconds / quick.nanoseconds)
    }
    let ratio = median(ratios)
    print(
        String(
            format: "  %@: %.1f µs per estimate (.fast) vs %.1f µs (.libm): %.2fx cheaper — %@ (target ≥ 3x)",
            name, median(fastTimes) / 1000, median(referenceTimes) / 1000, ratio, verdict(ratio) { $0 >= 3 }))
    print(
        String(
            format: "  %@: %d estimates compared: largest position difference %.2e m, confidence %.2e m, %d level/none differences — %@",
            name, compared, worstMove, worstConfidence, differentLevel,
            verdict(Double(compared), measured: compared > 0) { _ in worstMove < 0.01 && differentLevel == 0 }))
}
