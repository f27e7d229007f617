public import BeaconKit
import Foundation

/// A venue, loaded, validated and indexed: levels, regions, gateways, waypoints and walkable
/// links, with the lookups and walking-distance queries the planner and the coordinator need.
///
/// Immutable and `Sendable`: share one instance between tasks. Walking-distance searches keep
/// their scratch memory in a ``WalkingDistanceSearch`` per task.
///
/// ```swift
/// let venue = try Topology.load(directory: URL(fileURLWithPath: "topology/museum"))
/// let search = WalkingDistanceSearch(topology: venue)
/// let here = try venue.snap(VenuePoint(x: 12, y: 4, level: "L0"))
/// let nearest = search.nearestRegions(from: here, count: 20)
/// ```
public final class Topology: Sendable {
    /// The venue's name (`venue.conf`'s `name`, else the directory's name).
    public let name: String
    /// A digest of the venue's files: changes whenever any of them changes.
    public let revision: String
    /// The default region budget from `venue.conf`, when set.
    public let budget: Int?
    public let levels: [Level]
    /// Every region, in file order; queries answer with indices into this array.
    public let regions: [Region]
    public let waypoints: [Waypoint]
    public let gateways: [Gateway]
    /// Every link with the walking distance the planner uses.
    public let links: [Link]
    /// Indices of the pinned regions, in id order.
    public let pinnedRegions: [Int]
    /// The largest region radius: bounds how far a search must look beyond its k-th region.
    public let maximumRadius: Double
    /// The venue's radio assumptions (`venue.conf`).
    public let radio: RadioEnvironment
    /// The venue's tuning of the position filter (`venue.conf`'s `walking-speed`,
    /// `velocity-gain`, `anchors-per-estimate`).
    public let positionTuning: PositionTuning
    /// How room and floor presence is tuned (`venue.conf`'s `room-dwell`, `room-margin`,
    /// `level-dwell`, `level-reach`, `presence-offset-gain`).
    public let presenceTuning: PresenceTuning
    /// Per region: metres within which a phone detects its beacon (from its `power`, else the
    /// venue's); where iOS reports it *inside* and wakes a suspended phone.
    public let detectionRanges: [Double]
    /// Per region: metres within which a phone may already have detected its beacon on a lucky
    /// reading (``RadioEnvironment/reach(measuredPower:)``): beyond it the region is *quiet*, and
    /// monitoring it wakes a suspended phone when it comes into range.
    public let reachRanges: [Double]
    /// Which identities heard by gateways are clients (`clients.csv`); nil when the venue has none:
    /// every identity that is not a region beacon is then a client.
    public let clientPolicy: ClientPolicy?
    /// The venue's rooms (`areas.csv`), in file order; empty when it has none (walls are then
    /// ignored: inside-ness and snapping are by distance alone).
    public let areas: [Area]
    /// Where the local metres sit on the Earth (`venue.conf`'s `origin-lat`, `origin-lon`).
    public let origin: GeoOrigin?
    /// Per region: the index of the room its beacon is in, nil when unplaced or in none.
    public let regionRooms: [Int?]
    /// Which rooms are neighbours (doors, openings, stairs and lifts) and where the levels meet
    /// (without rooms, only the latter).
    public let roomGraph: RoomGraph
    let roomIndex: RoomIndex
    /// Per room: the snapping segments inside it (see ``snap(_:)``).
    let roomSegments: RoomSegments

    let levelIndexByID: [String: Int]
    let regionIndexByID: [String: Int]
    let regionIndexByIdentity: [RegionIdentity: Int]
    let gatewayIndexByID: [String: Int]
    /// Per region: its graph node, or -1 when it has no position.
    let regionNode: [Int32]
    let graph: WalkingGraph
    let segmentIndex: SegmentIndex
    let regionGrid: RegionGrid

    init(
        name: String, revision: String, budget: Int?, radio: RadioEnvironment = RadioEnvironment(),
        positionTuning: PositionTuning = PositionTuning(), presenceTuning: PresenceTuning = PresenceTuning(), levels: [Level],
        regions: [Region],
        waypoints: [Waypoint], gateways: [Gateway], links: [Link], regionNode: [Int32], graph: WalkingGraph,
        clientPolicy: ClientPolicy? = nil, areas: [Area] = [], origin: GeoOrigin? = nil
    ) {
        self.areas = areas
        self.origin = origin
        let roomIndex = RoomIndex(areas: areas)
        self.roomIndex = roomIndex
        regionRooms = regions.map { region in region.position.flatMap { roomIndex.room(at: $0) } }
        self.name = name
        self.clientPolicy = clientPolicy
        self.revision = revision
        self.budget = budget
        self.radio = radio
        self.positionTuning = positionTuning
        self.presenceTuning = presenceTuning
        detectionRanges = regions.map { radio.detectionRange(measuredPower: $0.measuredPower) }
        reachRanges = regions.map { radio.reach(measuredPower: $0.measuredPower) }
        self.levels = levels
        self.regions = regions
        self.waypoints = waypoints
        self.gateways = gateways
        self.links = links
        self.regionNode = regionNode
        self.graph = graph
        levelIndexByID = Dictionary(levels.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        regionIndexByID = Dictionary(regions.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        regionIndexByIdentity = Dictionary(regions.enumerated().map { ($1.identity, $0) }, uniquingKeysWith: { first, _ in first })
        gatewayIndexByID = Dictionary(gateways.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        pinnedRegions = regions.indices.filter { regions[$0].isPinned }.sorted { regions[$0].id < regions[$1].id }
        maximumRadius = regions.reduce(0) { Swift.max($0, $1.position == nil ? 0 : $1.radius) }
        segmentIndex = SegmentIndex(graph: graph, levelCount: levels.count)
        regionGrid = RegionGrid(regions: regions, levelIndex: levelIndexByID, levelCount: levels.count)
        roomSegments = RoomSegments(rooms: roomIndex, segments: segmentIndex, graph: graph, levels: levels)
        roomGraph = RoomGraph(graph: graph, rooms: roomIndex, levels: levels)
    }

    // MARK: Lookups

    /// The index of the region with this topology id.
    public func regionIndex(id: String) -> Int? { regionIndexByID[id] }

    /// The region with this topology id.
    public func region(id: String) -> Region? { regionIndexByID[id].map { regions[$0] } }

    /// The region registered with exactly this identity (wildcards included).
    public func regionIndex(identity: RegionIdentity) -> Int? { regionIndexByIdentity[identity] }

    /// The most specific region a beacon with this identity belongs to: the exact UUID + major +
    /// minor region, else the UUID + major wildcard, else the UUID-only wildcard.
    public func regionIndex(beacon identity: BeaconIdentity) -> Int? {
        guard identity.kind == .uuidMajorMinor else { return nil }
        return regionIndexByIdentity[RegionIdentity(uuid: identity.uuid, major: identity.major, minor: identity.minor)]
            ?? regionIndexByIdentity[RegionIdentity(uuid: identity.uuid, major: identity.major)]
            ?? regionIndexByIdentity[RegionIdentity(uuid: identity.uuid)]
    }

    /// The index of the level with this id.
    public func levelIndex(id: String) -> Int? { levelIndexByID[id] }

    /// The index of the gateway with this id.
    public func gatewayIndex(id: String) -> Int? { gatewayIndexByID[id] }

    /// The gateway with this id.
    public func gateway(id: String) -> Gateway? { gatewayIndexByID[id].map { gateways[$0] } }

    // MARK: Locations

    /// Where walking distances from a region are measured: its centre, a node of the graph.
    /// Nil for a region without a position.
    public func location(ofRegion index: Int) -> GraphLocation? {
        let node = regionNode[index]
        guard node >= 0, let position = regions[index].position else { return nil }
        return GraphLocation(
            x: position.x, y: position.y, level: position.level, offset: 0, nodeA: node, nodeB: -1, distanceToA: 0, distanceToB: 0)
    }

    /// The region's location, by id.
    public func location(ofRegionID id: String) throws(TopologyQueryError) -> GraphLocation {
        guard let index = regionIndexByID[id] else { throw .unknownRegion(id) }
        guard let location = location(ofRegion: index) else { throw .noWalkableGraph(level: regions[index].level ?? "(none)") }
        return location
    }

    /// Snaps a position onto the nearest walkable link of its level (never onto another level).
    ///
    /// The walking distance to each end of the link is the link's distance shared in proportion
    /// to where the point falls along it.
    public func snap(_ point: VenuePoint) throws(TopologyQueryError) -> GraphLocation {
        guard let level = levelIndexByID[point.level] else { throw .unknownLevel(point.level) }
        guard var hit = segmentIndex.nearest(x: point.x, y: point.y, level: level, graph: graph) else {
            throw .noWalkableGraph(level: point.level)
        }
        // Never through a wall: in a room, the nearest link of that room when it has one.
        if let room = roomIndex.room(at: point),
            let inRoom = roomSegments.nearest(x: point.x, y: point.y, room: room, hit: hit, graph: graph)
        {
            hit = inRoom
        }
        let segment = hit.segment
        if segment.a == segment.b || hit.fraction == 0 {
            return GraphLocation(
                x: hit.x, y: hit.y, level: point.level, offset: hit.distance, nodeA: segment.a, nodeB: -1, distanceToA: 0, distanceToB: 0)
        }
        if hit.fraction == 1 {
            return GraphLocation(
                x: hit.x, y: hit.y, level: point.level, offset: hit.distance, nodeA: segment.b, nodeB: -1, distanceToA: 0, distanceToB: 0)
        }
        return GraphLocation(
            x: hit.x, y: hit.y, level: point.level, offset: hit.distance,
            nodeA: segment.a, nodeB: segment.b,
            distanceToA: hit.fraction * segment.weight, distanceToB: (1 - hit.fraction) * segment.weight
        )
    }

    /// Walking distances from a location to the nearest `count` regions' edges, nearest first,
    /// ties broken by region id. Allocates a search: for many queries keep a
    /// ``WalkingDistanceSearch`` instead.
    public func nearestRegions(from location: GraphLocation, count: Int) -> [RegionDistance] {
        WalkingDistanceSearch(topology: self).nearestRegions(from: location, count: count)
    }

    /// Placed regions on the point's level whose edge is within `radius` metres of it in a straight
    /// line (walls and floors ignored), by index. For position uncertainty: a client estimated at
    /// `point` with that confidence radius could be in any of them.
    public func regions(near point: VenuePoint, within radius: Double) -> [Int] {
        guard let level = levelIndexByID[point.level] else { return [] }
        return regionGrid.regions(nearX: point.x, y: point.y, level: level, within: radius, maximumRadius: maximumRadius, regions: regions)
    }

    /// The graph's size, for statistics and benchmarks.
    public var nodeCount: Int { graph.nodeCount }
}
