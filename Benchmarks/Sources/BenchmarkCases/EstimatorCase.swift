// The position estimate, the coordinator's once-a-second work per tracked client: the production
// arithmetic (`PositionArithmetic.fast`, the figure) against the original libm formula (`.libm`,
// the baseline) on the same pre-generated evidence; the target is .fast at least 3× cheaper. Making
// the pair checks that the two agree (each step from the same state, so differences do not
// compound): positions within 1 cm, the same level.
//
// Walk: tags walk between random waypoints at 1.2 m/s; each second every gateway of their level
// within 30 m hears them with the log-distance model plus 4 dB of Gaussian noise, and the strongest
// 8 (the coordinator's `maximumObservations`) are one update's evidence.
import Foundation
import Planner
import Topology

public enum EstimatorCase {
    /// One tag's evidence for each second of its walk.
    typealias Walk = [[PositionObservation]]

    public static func make(venue name: String, tags: Int, seconds: Int) throws -> WorkloadPair {
        let topology = try Topology.load(directory: repositoryRoot.appendingPathComponent("topology/\(name)"))
        let fast = try PositionEstimator(topology: topology, configuration: PositionEstimatorConfiguration(venue: topology))
        var reference = fast
        reference.arithmetic = PositionArithmetic.libm
        let evidence = walks(topology: topology, estimator: fast, tags: tags, seconds: seconds, seed: 16)
        let updates = try checkAgreement(fast, reference, evidence)
        let libm = reference
        return WorkloadPair(
            figure: Workload(unit: "estimate", items: updates) { estimateAll(fast, evidence) },
            baseline: Workload(unit: "estimate", items: updates) { estimateAll(libm, evidence) })
    }

    /// Every walk's updates, each tag's filter chained second by second; a checksum of the positions.
    static func estimateAll(_ estimator: PositionEstimator, _ walks: [Walk]) -> Int {
        var checksum = 0.0
        for walk in walks {
            var state: PositionState? = nil
            for (second, evidence) in walk.enumerated() {
                let at = Date(timeIntervalSinceReferenceDate: Double(second))
                guard let estimate = estimator.update(state, observations: evidence, at: at) else { continue }
                state = estimate.state
                checksum += estimate.x + estimate.y
            }
        }
        return Int(checksum)
    }

    /// Both from the reference's state at every step: positions within 1 cm, the same level or none.
    /// Answers the number of estimates made.
    static func checkAgreement(_ fast: PositionEstimator, _ reference: PositionEstimator, _ evidence: [Walk]) throws -> Int {
        var compared = 0
        for walk in evidence {
            var state: PositionState? = nil
            for (second, observations) in walk.enumerated() {
                let time = Date(timeIntervalSinceReferenceDate: Double(second))
                let exact = reference.update(state, observations: observations, at: time)
                let quick = fast.update(state, observations: observations, at: time)
                guard let exact, let quick else {
                    guard (exact == nil) == (quick == nil) else { throw BenchmarkCaseError("one arithmetic estimated, the other not") }
                    continue
                }
                let dx = exact.x - quick.x
                let dy = exact.y - quick.y
                guard exact.level == quick.level, (dx * dx + dy * dy).squareRoot() < 0.01 else {
                    throw BenchmarkCaseError("the .fast and .libm estimates differ: \(quick) against \(exact)")
                }
                state = exact.state
                compared += 1
            }
        }
        return compared
    }

    static func walks(topology: Topology, estimator: PositionEstimator, tags: Int, seconds: Int, seed: UInt64) -> [Walk] {
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
}

/// The repository's root (topology/ and docs/ are found from it), from this file's path.
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
