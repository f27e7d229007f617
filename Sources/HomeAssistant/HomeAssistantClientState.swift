import Foundation
import Topology
import WireProtocol

/// What a client's Home Assistant entities show: its place, published as it is on the tracker's
/// state topic, and its attributes, one JSON object on the attributes topic.
///
/// ``location`` (the `device_tracker`'s state) names where the client is: the room its estimate is
/// in, when the venue has rooms (`areas.csv`; also the `room` attribute), else the region it is
/// inside (of those with a beacon, the nearest beacon), else the nearest region whose beacon it is
/// within detection range of, else a level- or venue-wide region it is inside, else `home`
/// (present, somewhere in the venue); `not_home` once it has left (absent from every healthy
/// gateway, or no estimate and no region). Home Assistant's MQTT tracker takes a state payload as
/// the location name unless it is `payload_home`, `payload_not_home` or `payload_reset` (`None`):
/// so the payload is the name itself, never a JSON document, and a place whose name is one of
/// those words is written with its id (``payload(place:id:)``).
///
/// The attributes carry the position (`x`, `y`, `level`, `confidence`), the `region`, the `room`,
/// `beacon` and `distance` (the straight-line distance on the level to that region's beacon,
/// metres, one decimal, `null` when there is none: the distance sensor then shows unknown),
/// `in_zones` (the Home Assistant zones it is in: `zone.home` while present, and zones named after
/// its room and region, which exist only when the operator created them), `kind`, `present` and
/// the client's `id`. Positions are rounded to 0.1 m so that an estimate's jitter does not make a
/// new message.
struct HomeAssistantClientState: Sendable, Equatable {
    struct Attributes: Encodable, Sendable, Equatable {
        var id: String
        var kind: String
        var present: Bool
        var x: Double?
        var y: Double?
        var level: String?
        var confidence: Double?
        var region: String?
        /// The room (`areas.csv`) the estimate is in, when the venue has rooms.
        var room: String?
        /// The region whose beacon ``distance`` is measured to.
        var beacon: String?
        var distance: Double?
        /// Home Assistant zone entity ids (`in_zones`, the attribute its zones and zone triggers read).
        var inZones: [String]

        private enum CodingKeys: String, CodingKey {
            case id, kind, present, x, y, level, confidence, region, room, beacon, distance
            case inZones = "in_zones"
        }

        /// `distance` is written as `null` when there is none: the sensor's template then renders
        /// `None`, which Home Assistant's MQTT sensor takes as unknown (a missing key would render
        /// an empty string, which a numeric sensor ignores, keeping a stale distance).
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(kind, forKey: .kind)
            try container.encode(present, forKey: .present)
            try container.encodeIfPresent(x, forKey: .x)
            try container.encodeIfPresent(y, forKey: .y)
            try container.encodeIfPresent(level, forKey: .level)
            try container.encodeIfPresent(confidence, forKey: .confidence)
            try container.encodeIfPresent(region, forKey: .region)
            try container.encodeIfPresent(room, forKey: .room)
            try container.encodeIfPresent(beacon, forKey: .beacon)
            try container.encode(distance, forKey: .distance)
            try container.encode(inZones, forKey: .inZones)
        }
    }

    /// The tracker's state payload: a place's name, `home` or `not_home`.
    var location: String
    var attributes: Attributes

    /// Home Assistant's states for a device tracker at home / away (its `payload_home` and
    /// `payload_not_home` defaults), and the payload that resets it to unknown (`payload_reset`).
    static let home = "home"
    static let notHome = "not_home"
    static let reset = "None"
    /// The zone every Home Assistant has: where the tracker is while it is `home`.
    static let homeZone = "zone.home"

    init(_ snapshot: ClientSnapshot, places: HomeAssistantPlaces) {
        let position = snapshot.position
        let point = position.map { VenuePoint(x: $0.x, y: $0.y, level: $0.level) }
        let place = snapshot.present ? places.place(of: point, inside: snapshot.inside) : nil
        var zones: [String] = []
        if snapshot.present, let room = position?.room {
            location = Self.payload(place: room, id: places.roomID(named: room, level: position?.level) ?? room)
            zones.append(HomeAssistantZone.entityID(named: room))
        } else if let place {
            location = Self.payload(place: place.region, id: place.region)
        } else {
            location = snapshot.present && point != nil ? Self.home : Self.notHome
        }
        if let place { zones.append(HomeAssistantZone.entityID(named: place.region)) }
        if location != Self.notHome { zones.append(Self.homeZone) }
        attributes = Attributes(
            id: snapshot.id, kind: snapshot.kind, present: snapshot.present, x: position.map { Self.tenth($0.x) },
            y: position.map { Self.tenth($0.y) }, level: position?.level, confidence: position?.confidence.map(Self.tenth),
            region: place?.region, room: snapshot.present ? position?.room : nil, beacon: place?.distance == nil ? nil : place?.region,
            distance: place?.distance.map(Self.tenth), inZones: zones)
    }

    /// A place's name as the tracker's payload: as it is, unless Home Assistant would read it as
    /// something else (`home`, `not_home`, `None`, or blank): then `name (id)`.
    static func payload(place name: String, id: String) -> String {
        let reserved = [home, notHome, reset].contains(name) || name.allSatisfy(\.isWhitespace)
        return reserved ? "\(name) (\(id))" : name
    }

    static func tenth(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}

/// Home Assistant's zone entity ids as its `slugify` makes them from a zone's name: lower case,
/// accents dropped, every run of other characters one `_`, none at either end
/// (`Entrance hall` → `zone.entrance_hall`).
enum HomeAssistantZone {
    static func entityID(named name: String) -> String {
        let folded = name.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).lowercased()
        var slug = ""
        var gap = false
        for scalar in folded.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                if gap, !slug.isEmpty { slug += "_" }
                slug.unicodeScalars.append(scalar)
                gap = false
            } else {
                gap = true
            }
        }
        return "zone." + (slug.isEmpty ? "unknown" : slug)
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

    /// The id of the room named `name` (on `level`, when known).
    func roomID(named name: String, level: String?) -> String? {
        topology.areas.first { $0.displayName == name && (level == nil || $0.level == level) }?.id
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
