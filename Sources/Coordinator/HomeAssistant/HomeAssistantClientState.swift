import Foundation
import Topology

/// What a client's Home Assistant entities show, as the JSON on its state topic:
/// `{"state": …, "distance": …, "attributes": {"x", "y", "level", "confidence", "region", "kind", "present"}}`.
///
/// `state` (the `device_tracker`'s) names where the client is: the room its estimate is in, when
/// the venue has rooms (`areas.csv`; also the `room` attribute), else the region it is inside (of those
/// with a beacon, the nearest beacon), else the nearest region whose beacon it is within detection
/// range of, else a level- or venue-wide region it is inside, else `home` (present, somewhere in
/// the venue); `not_home` once it has left (absent from every healthy gateway, or no estimate and
/// no region). `distance` is the straight-line distance on the level to that region's beacon
/// (metres, one decimal; `null`, which Home Assistant shows as unknown, when there is none).
/// Positions are rounded to 0.1 m so that an estimate's jitter does not make a new message.
struct HomeAssistantClientState: Encodable, Sendable, Equatable {
    struct Attributes: Encodable, Sendable, Equatable {
        var x: Double?
        var y: Double?
        var level: String?
        var confidence: Double?
        var region: String?
        /// The room (`areas.csv`) the estimate is in, when the venue has rooms.
        var room: String?
        var kind: String
        var present: Bool
    }

    var state: String
    var distance: Double?
    var attributes: Attributes

    /// Home Assistant's states for a device tracker at home / away.
    static let home = "home"
    static let notHome = "not_home"

    init(_ snapshot: ClientSnapshot, places: HomeAssistantPlaces) {
        let position = snapshot.position
        let point = position.map { VenuePoint(x: $0.x, y: $0.y, level: $0.level) }
        let place = snapshot.present ? places.place(of: point, inside: snapshot.inside) : nil
        if snapshot.present, let room = position?.room {
            state = room
            distance = place?.distance.map(Self.tenth)
        } else if let place {
            state = place.region
            distance = place.distance.map(Self.tenth)
        } else {
            state = snapshot.present && point != nil ? Self.home : Self.notHome
            distance = nil
        }
        attributes = Attributes(
            x: position.map { Self.tenth($0.x) }, y: position.map { Self.tenth($0.y) }, level: position?.level,
            confidence: position?.confidence.map(Self.tenth), region: place?.region, room: position?.room, kind: snapshot.kind,
            present: snapshot.present)
    }

    static func tenth(_ value: Double) -> Double { (value * 10).rounded() / 10 }

    private enum CodingKeys: String, CodingKey { case state, distance, attributes }

    /// `distance` is written as `null` when there is none: the template reads `None`, which Home
    /// Assistant's MQTT sensor takes as unknown (a missing key would render empty, a warning).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(distance, forKey: .distance)
        try container.encode(attributes, forKey: .attributes)
    }
}

/// The topology's regions as places a client can be at, for ``HomeAssistantClientState``.
struct HomeAssistantPlaces: Sendable {
    let topology: Topology
    /// The largest detection range (or radius) of any region, to bound the search.
    private let reach: Double

    init(topology: Topology) {
        self.topology = topology
        reach = zip(topology.regions, topology.detectionRanges).map { max($0.radius, $1) }.max() ?? 0
    }

    /// The region a client at `point` (if estimated), inside `inside` (region ids), is at, and the
    /// distance to its beacon; `nil` for none.
    func place(of point: VenuePoint?, inside: [String]) -> (region: String, distance: Double?)? {
        let indices = inside.compactMap { topology.regionIndex(id: $0) }
        // Inside a region with a beacon: the nearest such beacon.
        let placed = indices.filter { topology.regions[$0].position != nil }
        if let point, let nearest = nearest(placed, to: point) { return nearest }
        if point == nil, let first = placed.first { return (topology.regions[first].id, nil) }
        // Within detection range of a beacon on the level.
        if let point {
            let inRange = topology.regions(near: point, within: reach).filter { index in
                guard let distance = distance(point, index) else { return false }
                return distance <= max(topology.regions[index].radius, topology.detectionRanges[index])
            }
            if let nearest = nearest(inRange, to: point) { return nearest }
        }
        // A region without a beacon of its own (a level, the whole venue).
        if let first = indices.first { return (topology.regions[first].id, nil) }
        return nil
    }

    private func nearest(_ indices: [Int], to point: VenuePoint) -> (region: String, distance: Double?)? {
        var best: (region: String, distance: Double?)?
        var bestDistance = Double.infinity
        for index in indices {
            guard let distance = distance(point, index), distance < bestDistance else { continue }
            bestDistance = distance
            best = (topology.regions[index].id, distance)
        }
        return best
    }

    /// Straight-line metres from `point` to region `index`'s beacon on the same level.
    private func distance(_ point: VenuePoint, _ index: Int) -> Double? {
        guard let centre = topology.regions[index].position, centre.level == point.level else { return nil }
        return ((centre.x - point.x) * (centre.x - point.x) + (centre.y - point.y) * (centre.y - point.y)).squareRoot()
    }
}
