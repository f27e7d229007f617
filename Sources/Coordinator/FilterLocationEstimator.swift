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

    /// Builds the filter for `topology` (indexed as `venue`).
    public init(topology: Topology, venue: VenueIndex, configuration: PositionEstimatorConfiguration = .init()) throws(PositionError) {
        var anchors: [PositionAnchor] = []
        var gatewayAnchor: [Int] = []
        for (i, id) in venue.gatewayIDs.enumerated() {
            let point = venue.gatewayPoints[i]
            let height = topology.gateway(id: id)?.height ?? 2.5
            gatewayAnchor.append(anchors.count)
            anchors.append(PositionAnchor(id: "gateway:\(id)", x: point.x, y: point.y, height: height, level: venue.levelName(point.level)))
        }
        var regionAnchor: [Int32: Int] = [:]
        for (i, region) in venue.regions.enumerated() {
            guard let point = region.point, region.beacon != nil else { continue }
            regionAnchor[Int32(i)] = anchors.count
            anchors.append(PositionAnchor(id: "region:\(region.id)", x: point.x, y: point.y, height: 2.5, level: venue.levelName(point.level)))
        }
        // One area per level: the bounding box of everything placed on it, with a margin.
        var boxes: [Int32: (Double, Double, Double, Double)] = [:]
        func include(_ p: LevelPoint) {
            let b = boxes[p.level] ?? (p.x, p.y, p.x, p.y)
            boxes[p.level] = (min(b.0, p.x), min(b.1, p.y), max(b.2, p.x), max(b.3, p.y))
        }
        venue.gatewayPoints.forEach(include)
        venue.regions.compactMap(\.point).forEach(include)
        let areas = boxes.keys.sorted().map { level -> PositionArea in
            let b = boxes[level]!
            return PositionArea(level: venue.levelName(level), minX: b.0 - 5, minY: b.1 - 5, maxX: b.2 + 5, maxY: b.3 + 5)
        }
        let estimator = try PositionEstimator(anchors: anchors, areas: areas, configuration: configuration)
        self.estimator = estimator
        self.venue = venue
        self.gatewayAnchor = gatewayAnchor
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
            case .gateway(let g): anchor = Int(g) < gatewayAnchor.count ? gatewayAnchor[Int(g)] : nil
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
