public import Topology

/// The topology snaps estimates onto its walkable graph (the nearest link of the same level).
extension Topology: PositionSnapping {
    public func snap(x: Double, y: Double, level: String) -> GraphLocation? {
        try? snap(VenuePoint(x: x, y: y, level: level))
    }
}

/// Which anchors a topology-built estimator knows.
public struct PositionAnchorSet: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The venue's gateways (they hear a client's own advertisements).
    public static let gateways = PositionAnchorSet(rawValue: 1)
    /// The beacons of positioned regions with a full identity (a phone ranges them).
    public static let regionBeacons = PositionAnchorSet(rawValue: 2)
    public static let all: PositionAnchorSet = [.gateways, .regionBeacons]
}

extension PositionEstimator {
    /// The anchor id of a gateway in a topology-built estimator: `gateway/ID`.
    public static func anchorID(gateway id: String) -> String { "gateway/" + id }
    /// The anchor id of a region's beacon in a topology-built estimator: `region/ID`.
    public static func anchorID(region id: String) -> String { "region/" + id }

    /// An estimator for a venue: its gateways (with the `rssi_offset` and `path_loss_exponent` that
    /// `gateways.csv` declares) and/or its positioned region beacons as anchors,
    /// each level's area the bounding box of its walkable graph plus `areaMargin`, levels ordered
    /// by elevation, estimates snapped onto the graph.
    ///
    /// Look anchors up with ``anchorIndex(ofGateway:)`` and ``anchorIndex(ofRegion:)``.
    /// - Parameters:
    ///   - gatewayHeight: antenna height for gateways whose topology gives none, metres.
    ///   - beaconHeight: mounting height of region beacons, metres.
    ///   - calibrate: each anchor's radio calibration (``PositionAnchor/rssiOffset``,
    ///     ``PositionAnchor/exponent``), given the anchor as the topology places it; none by default.
    public init(
        topology: Topology, anchors set: PositionAnchorSet = .all, configuration: PositionEstimatorConfiguration = .init(),
        gatewayHeight: Double = 2.5, beaconHeight: Double = 2.5, areaMargin: Double = 2,
        calibrate: (PositionAnchor) -> PositionAnchor = { $0 }
    ) throws(PositionError) {
        var anchors: [PositionAnchor] = []
        if set.contains(.gateways) {
            for gateway in topology.gateways {
                anchors.append(
                    PositionAnchor(
                        id: Self.anchorID(gateway: gateway.id), x: gateway.position.x, y: gateway.position.y,
                        height: gateway.height ?? gatewayHeight, level: gateway.position.level,
                        rssiOffset: gateway.rssiOffset ?? 0, exponent: gateway.pathLossExponent))
            }
        }
        if set.contains(.regionBeacons) {
            for region in topology.regions where region.identity.major != nil && region.identity.minor != nil {
                guard let position = region.position else { continue }
                // A beacon declared stronger or weaker than the model's reference (`power` in
                // regions.csv) reads that much hot or cold everywhere.
                let offset = region.measuredPower.map { Double($0) - configuration.pathLoss.referencePower } ?? 0
                anchors.append(
                    PositionAnchor(
                        id: Self.anchorID(region: region.id), x: position.x, y: position.y, height: beaconHeight, level: position.level,
                        rssiOffset: offset))
            }
        }
        var bounds: [String: (minX: Double, minY: Double, maxX: Double, maxY: Double)] = [:]
        func include(_ point: VenuePoint) {
            var box = bounds[point.level] ?? (point.x, point.y, point.x, point.y)
            box.minX = min(box.minX, point.x)
            box.maxX = max(box.maxX, point.x)
            box.minY = min(box.minY, point.y)
            box.maxY = max(box.maxY, point.y)
            bounds[point.level] = box
        }
        for region in topology.regions { if let position = region.position { include(position) } }
        for waypoint in topology.waypoints { include(waypoint.position) }
        let levels = topology.levels.enumerated().sorted { ($0.element.elevation, $0.offset) < ($1.element.elevation, $1.offset) }.map(
            \.element.id)
        let areas = levels.compactMap { level in
            bounds[level].map {
                PositionArea(
                    level: level, minX: $0.minX - areaMargin, minY: $0.minY - areaMargin, maxX: $0.maxX + areaMargin,
                    maxY: $0.maxY + areaMargin)
            }
        }
        try self.init(anchors: anchors.map(calibrate), areas: areas, configuration: configuration, snapper: topology)
    }

    /// The index of a gateway's anchor (topology-built estimators).
    public func anchorIndex(ofGateway id: String) -> Int? { anchorIndex(of: Self.anchorID(gateway: id)) }

    /// The index of a region beacon's anchor (topology-built estimators).
    public func anchorIndex(ofRegion id: String) -> Int? { anchorIndex(of: Self.anchorID(region: id)) }
}
