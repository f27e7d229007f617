// Walking-distance search on a generated venue:
// - `topology`: the nearest-20 query (bounded Dijkstra, the figure) against SwiftGraph's full
//   Dijkstra on the same graph (the baseline); making the pair checks the answers identical.
// - `planner`: NearestPlanner.plan with hysteresis, a client stepping from region to region (the
//   figure), against the nearest-20 query it is built on (the baseline).
import Foundation
import Planner
import SwiftGraph
import Topology

public enum TopologyCase {
    public static let k = 20

    public static func make(regions size: Int, queries: Int) throws -> (nearest: WorkloadPair, planner: WorkloadPair) {
        let levels = size >= 100_000 ? 4 : size >= 10_000 ? 2 : 1
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beaconfleet-bench-\(size)-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try VenueGenerator(regions: size, levels: levels, seed: 2024).write(to: directory)
        let venue = try Topology.load(directory: directory)
        let search = WalkingDistanceSearch(topology: venue)
        var random = SplitMix64(seed: UInt64(size))
        let placed = venue.regions.indices.filter { venue.regions[$0].position != nil }
        let sources = (0..<queries).map { _ in placed[random.int(in: 0...(placed.count - 1))] }
        let locations = sources.map { venue.location(ofRegion: $0)! }

        // SwiftGraph: full Dijkstra, fewer queries on big venues; every answer checked against ours.
        let baseline = SwiftGraphBaseline(venue)
        let baselineSources = Array(sources.prefix(size >= 100_000 ? 5 : size >= 10_000 ? 20 : 100))
        for source in baselineSources {
            let expected = baseline.nearest(from: source, count: k, venue: venue)
            let answer = search.nearestRegions(from: venue.location(ofRegion: source)!, count: k)
            guard answer == expected else {
                throw BenchmarkCaseError("nearest-\(k) from \(venue.regions[source].id) differs from SwiftGraph's full Dijkstra")
            }
        }

        var results: [RegionDistance] = []
        let query = Workload(unit: "query", items: locations.count) {
            var checksum = 0
            for location in locations {
                search.nearestRegions(from: location, count: k, into: &results)
                checksum &+= results.count
            }
            return checksum
        }
        let nearest = WorkloadPair(
            figure: query,
            baseline: Workload(unit: "query", items: baselineSources.count) {
                baselineSources.reduce(0) { $0 &+ baseline.nearest(from: $1, count: k, venue: venue).count }
            })
        let planner = NearestPlanner(topology: venue)
        let plan = Workload(unit: "plan", items: locations.count) {
            var monitored: [Int] = []
            for location in locations {
                let plan = planner.plan(
                    PlanRequest(location: location, monitored: monitored, now: Date(timeIntervalSince1970: 0)), using: search)
                monitored = plan.regions.map(\.region)
            }
            return monitored.count
        }
        return (nearest, WorkloadPair(figure: plan, baseline: query))
    }
}

/// The venue's walkable graph rebuilt in SwiftGraph from the public model (placed regions and
/// waypoints as vertices, links as undirected weighted edges).
struct SwiftGraphBaseline {
    let graph: WeightedGraph<UInt32, Double>
    let vertexOfRegion: [Int]  // -1 when unplaced
    let regionOfVertex: [Int]  // -1 for waypoints
    /// Region order by id, for ties.
    let rankOfRegion: [Int]

    init(_ venue: Topology) {
        var vertexByID: [String: Int] = [:]
        var vertexOfRegion = [Int](repeating: -1, count: venue.regions.count)
        var regionOfVertex: [Int] = []
        for (index, region) in venue.regions.enumerated() where region.position != nil {
            vertexOfRegion[index] = regionOfVertex.count
            vertexByID[region.id] = regionOfVertex.count
            regionOfVertex.append(index)
        }
        for waypoint in venue.waypoints {
            vertexByID[waypoint.id] = regionOfVertex.count
            regionOfVertex.append(-1)
        }
        let graph = WeightedGraph<UInt32, Double>(vertices: (0..<regionOfVertex.count).map { UInt32($0) })
        for link in venue.links {
            graph.addEdge(fromIndex: vertexByID[link.from]!, toIndex: vertexByID[link.to]!, weight: link.distance, directed: false)
        }
        var rank = [Int](repeating: 0, count: venue.regions.count)
        for (position, index) in venue.regions.indices.sorted(by: { venue.regions[$0].id < venue.regions[$1].id }).enumerated() {
            rank[index] = position
        }
        self.graph = graph
        self.vertexOfRegion = vertexOfRegion
        self.regionOfVertex = regionOfVertex
        self.rankOfRegion = rank
    }

    /// Full Dijkstra from the region, then the k regions nearest to their edge, ties by id.
    func nearest(from region: Int, count: Int, venue: Topology) -> [RegionDistance] {
        let (distances, _) = graph.dijkstra(root: vertexOfRegion[region], startDistance: 0)
        var all: [RegionDistance] = []
        all.reserveCapacity(distances.count)
        for (vertex, distance) in distances.enumerated() {
            let r = regionOfVertex[vertex]
            guard r >= 0, let distance else { continue }
            all.append(RegionDistance(region: r, distance: max(0, distance - venue.regions[r].radius)))
        }
        all.sort { ($0.distance, rankOfRegion[$0.region]) < ($1.distance, rankOfRegion[$1.region]) }
        return Array(all.prefix(count))
    }
}
