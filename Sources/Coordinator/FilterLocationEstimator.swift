public import Foundation
public import Planner
public import Topology

/// The production estimator: the Planner's ``Planner/PositionEstimator`` (a Bayesian filter over a
/// log-distance radio model, robust to wild readings and to anchors heard through a floor)
/// behind the coordinator's ``LocationEstimating``. Gateways and placed region beacons are its anchors.
public struct FilterLocationEstimator: LocationEstimating, Sendable {
    public let estimator: PositionEstimator
    private let venue: VenueIndex
    private let gatewayAnchor: [Int]
    private let regionAnchor: [Int32: Int]
    private let levelToFilter: [Int32]
    private let levelFromFilter: [Int32]

    /// Builds the filter for `topology` (indexed as `venue`): `PositionEstimator(topology:)`, the
    /// estimator `beaconfleet simulate` measures (levels by elevation, each level's area the box of
    /// its walkable graph, estimates snapped onto it).
    public init(topology: Topology, venue: VenueIndex, configuration: PositionEstimatorConfiguration = .init()) throws(PositionError) {
        let estimator = try PositionEstimator(topology: topology, configuration: configuration)
        self.estimator = estimator
        self.venue = venue
        self.gatewayAnchor = venue.gatewayIDs.map { estimator.anchorIndex(ofGateway: $0) ?? -1 }
        var regionAnchor: [Int32: Int] = [:]
        for (i, region) in venue.regions.enumerated() {
            if let anchor = estimator.anchorIndex(ofRegion: region.id) { regionAnchor[Int32(i)] = anchor }
        }
        self.regionAnchor = regionAnchor
        self.levelToFilter = venue.levels.map { estimator.levelIndex(of: $0) ?? -1 }
        self.levelFromFilter = estimator.levels.map { venue.levelIndex($0) ?? -1 }
    }

    public func estimate(_ evidence: LocationEvidence, previous: LocationEstimate?, now: Int64) -> LocationEstimate? {
        var observations: [PositionObservation] = []
        observations.reserveCapacity(evidence.fresh.count)
        var time = previous?.time ?? Int64.min
        for o in evidence.fresh {
            let anchor: Int?
            switch o.anchor {
            case .gateway(let g): anchor = Int(g) < gatewayAnchor.count && gatewayAnchor[Int(g)] >= 0 ? gatewayAnchor[Int(g)] : nil
            case .region(let r): anchor = regionAnchor[r]
            }
            guard let anchor else { continue }
            observations.append(PositionObservation(anchor: anchor, rssi: o.rssi, count: max(1, o.count), txPower: o.txPower))
            time = max(time, o.time)
        }
        var constraints: [PositionConstraint] = []
        for region in evidence.inside {
            guard let point = venue.regions[Int(region)].point else { continue }
            constraints.append(PositionConstraint(.inside, x: point.x, y: point.y, level: venue.levelName(point.level), radius: venue.regions[Int(region)].radius))
        }
        if time == Int64.min { time = now }
        var state: PositionState?
        if let previous, Int(previous.point.level) < levelToFilter.count, levelToFilter[Int(previous.point.level)] >= 0 {
            state = PositionState(x: previous.point.x, y: previous.point.y, variance: previous.variance,
                                  time: Date(timeIntervalSince1970: Double(previous.time) / 1000).timeIntervalSinceReferenceDate,
                                  level: levelToFilter[Int(previous.point.level)])
        }
        guard let estimate = estimator.update(state, observations: observations, constraints: constraints,
                                              at: Date(timeIntervalSince1970: Double(time) / 1000)) else { return previous }
        let level = Int(estimate.state.level) < levelFromFilter.count ? levelFromFilter[Int(estimate.state.level)] : -1
        guard level >= 0 else { return previous }
        return LocationEstimate(point: LevelPoint(x: estimate.x, y: estimate.y, level: level), confidence: estimate.confidence,
                                variance: estimate.state.variance, time: time)
    }
}
