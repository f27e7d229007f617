public import BeaconKit
public import WireProtocol

/// A region as the coordinator needs it: topology id, the identity a phone registers, where it is.
public struct VenueRegion: Sendable, Equatable {
    /// The stable topology id (iOS keys monitored regions by it).
    public var id: String
    /// What the phone registers with CoreLocation.
    public var ref: RegionRef
    /// The full beacon identity of the region's beacon, when it has one (wildcard regions do not).
    public var beacon: BeaconIdentity?
    /// Where its beacon is; `nil` for a wildcard region with no single place (always pinned).
    public var point: LevelPoint?
    /// Radius in metres.
    public var radius: Double
    /// Pinned regions are always monitored.
    public var pinned: Bool

    public init(id: String, ref: RegionRef, beacon: BeaconIdentity?, point: LevelPoint?, radius: Double, pinned: Bool) {
        self.id = id
        self.ref = ref
        self.beacon = beacon
        self.point = point
        self.radius = radius
        self.pinned = pinned
    }
}

/// The venue as the coordinator indexes it: regions by id and by beacon identity, gateways by id,
/// and a grid for "which regions contain this point". Built once per topology (re)load.
public final class VenueIndex: Sendable {
    /// The venue's name and a revision that changes with its content.
    public let name: String
    public let revision: String
    /// Level names; a ``LevelPoint/level`` indexes this array.
    public let levels: [String]
    public let regions: [VenueRegion]
    /// Gateway ids and positions; a gateway's index is its position in these arrays.
    public let gatewayIDs: [String]
    public let gatewayPoints: [LevelPoint]
    public let gatewayByID: [String: Int32]
    /// Region index by topology id, and by the identity of its beacon.
    public let regionByID: [String: Int32]
    public let regionByBeacon: [BeaconIdentity: Int32]
    /// Indices of pinned regions, in topology order.
    public let pinned: [Int32]

    private let cellSize: Double
    private let cells: [CellKey: [Int32]]

    private struct CellKey: Hashable, Sendable {
        var x: Int32, y: Int32, level: Int32
    }

    /// Indexes `regions` and `gateways` (positions are already resolved to level indices).
    public init(name: String, revision: String, levels: [String], regions: [VenueRegion], gateways: [String: LevelPoint]) {
        self.name = name
        self.revision = revision
        self.levels = levels
        self.regions = regions
        let sortedGateways = gateways.sorted { $0.key < $1.key }
        self.gatewayIDs = sortedGateways.map(\.key)
        self.gatewayPoints = sortedGateways.map(\.value)
        self.gatewayByID = Dictionary(uniqueKeysWithValues: sortedGateways.enumerated().map { ($1.key, Int32($0)) })
        var byID = [String: Int32](minimumCapacity: regions.count)
        var byBeacon = [BeaconIdentity: Int32](minimumCapacity: regions.count)
        var pinned = [Int32]()
        let maxRadius = regions.lazy.filter { !$0.pinned }.map(\.radius).max() ?? 1
        let cellSize = max(2.0, min(maxRadius, 50.0))
        var cells = [CellKey: [Int32]]()
        for (i, region) in regions.enumerated() {
            let index = Int32(i)
            byID[region.id] = index
            if let beacon = region.beacon, byBeacon[beacon] == nil { byBeacon[beacon] = index }
            if region.pinned { pinned.append(index) }
            guard !region.pinned, let point = region.point else { continue }
            // Register the region in every cell its disc touches.
            let r = region.radius
            let x0 = VenueIndex.cell(point.x - r, cellSize), x1 = VenueIndex.cell(point.x + r, cellSize)
            let y0 = VenueIndex.cell(point.y - r, cellSize), y1 = VenueIndex.cell(point.y + r, cellSize)
            if Int(x1 - x0) * Int(y1 - y0) > 10_000 { continue }  // absurd radius: containment via pinned/planner only
            for cx in x0...x1 {
                for cy in y0...y1 {
                    cells[CellKey(x: cx, y: cy, level: point.level), default: []].append(index)
                }
            }
        }
        self.regionByID = byID
        self.regionByBeacon = byBeacon
        self.pinned = pinned
        self.cellSize = cellSize
        self.cells = cells
    }

    /// The grid cell of a coordinate, clamped so no input can trap.
    @inline(__always) static func cell(_ value: Double, _ size: Double) -> Int32 {
        let c = (value / size).rounded(.down)
        guard c.isFinite else { return 0 }
        return Int32(max(-1_000_000, min(1_000_000, c)))
    }

    /// The level's name for a point, or `"?"` when out of range.
    public func levelName(_ level: Int32) -> String {
        levels.indices.contains(Int(level)) ? levels[Int(level)] : "?"
    }

    /// The level index for a name.
    public func levelIndex(_ name: String) -> Int32? {
        levels.firstIndex(of: name).map { Int32($0) }
    }

    /// The wire form of a point.
    public func position(_ point: LevelPoint, confidence: Double?) -> Position {
        Position(x: (point.x * 100).rounded() / 100, y: (point.y * 100).rounded() / 100, level: levelName(point.level),
                 confidence: confidence.map { ($0 * 100).rounded() / 100 })
    }

    /// Non-pinned regions whose disc contains `point`, nearest centre first.
    public func regionsContaining(_ point: LevelPoint) -> [Int32] {
        let key = CellKey(x: VenueIndex.cell(point.x, cellSize), y: VenueIndex.cell(point.y, cellSize), level: point.level)
        guard let candidates = cells[key] else { return [] }
        var inside: [(Int32, Double)] = []
        for index in candidates {
            let region = regions[Int(index)]
            guard let centre = region.point else { continue }
            let d = centre.distance(to: point)
            if d <= region.radius { inside.append((index, d)) }
        }
        inside.sort { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
        return inside.map(\.0)
    }
}
