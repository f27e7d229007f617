// TopologyBenchmark: nearest-20 walking-distance queries on generated venues of 1k, 10k, 100k and
// 1M regions, side by side with SwiftGraph's full Dijkstra over the same graph in the same run,
// with every baseline answer checked identical to ours; plus load time, memory per region and
// the planner's cost per plan.
//
// Run: scripts/bench topology            (all sizes)
//      Benchmarks/.build/release/TopologyBenchmark 1000 100000   (chosen sizes)
import BenchmarkSupport
import Foundation
import Planner
import SwiftGraph
import Topology

#if canImport(Glibc)
    import Glibc
#endif

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func format(_ nanoseconds: Double) -> String {
    if nanoseconds < 1_000 { return String(format: "%.0f ns", nanoseconds) }
    if nanoseconds < 1_000_000 { return String(format: "%.2f µs", nanoseconds / 1_000) }
    if nanoseconds < 1_000_000_000 { return String(format: "%.2f ms", nanoseconds / 1_000_000) }
    return String(format: "%.2f s", nanoseconds / 1_000_000_000)
}

/// The venue's walkable graph rebuilt in SwiftGraph from the public model (placed regions and
/// waypoints as vertices, links as undirected weighted edges).
struct Baseline {
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

let sizes = CommandLine.arguments.dropFirst().compactMap { Int($0) }.nilIfEmpty ?? [1_000, 10_000, 100_000, 1_000_000]
let k = 20
print("Nearest-\(k) walking-distance query: bounded Dijkstra (ours) vs SwiftGraph 4 full Dijkstra on the same graph, release build.")
print(String(repeating: "-", count: 118))
print(
    "regions   levels  nodes      load      heap/region  ours median  ours p99   at-point med  SwiftGraph med  ratio    identical  plan median"
)

extension Array {
    var nilIfEmpty: [Element]? { isEmpty ? nil : self }
}

var failures = 0
for size in sizes {
    let levels = size >= 100_000 ? 4 : size >= 10_000 ? 2 : 1
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beaconfleet-bench-\(size)-\(getpid())")
    defer { try? FileManager.default.removeItem(at: directory) }
    try VenueGenerator(regions: size, levels: levels, seed: 2024).write(to: directory)

    // Heap in use (mallinfo2), not resident growth, which reads 0 where freed pages are reused.
    let heapBefore = HeapInUse.bytes() ?? 0
    let loadStart = nanoseconds()
    let venue = try Topology.load(directory: directory)
    let loadTime = Double(nanoseconds() - loadStart)
    let memoryPerRegion = Double((HeapInUse.bytes() ?? 0) - heapBefore) / Double(size)

    let search = WalkingDistanceSearch(topology: venue)
    var random = SplitMix64(seed: UInt64(size))
    let placed = venue.regions.indices.filter { venue.regions[$0].position != nil }
    // Ours: 20,000 queries from random regions, each timed (after a warm-up pass).
    let sources = (0..<20_000).map { _ in placed[random.int(in: 0...(placed.count - 1))] }
    let locations = sources.map { venue.location(ofRegion: $0)! }
    var results: [RegionDistance] = []
    for location in locations.prefix(2_000) { search.nearestRegions(from: location, count: k, into: &results) }
    var ours: [Double] = []
    ours.reserveCapacity(locations.count)
    for location in locations {
        let start = nanoseconds()
        search.nearestRegions(from: location, count: k, into: &results)
        ours.append(Double(nanoseconds() - start))
    }
    // From arbitrary positions: snap + query.
    var atPoint: [Double] = []
    for source in sources.prefix(5_000) {
        let p = venue.regions[source].position!
        let point = VenuePoint(
            x: p.x + Double(random.int(in: -300...300)) / 100, y: p.y + Double(random.int(in: -300...300)) / 100, level: p.level)
        let start = nanoseconds()
        let location = try venue.snap(point)
        search.nearestRegions(from: location, count: k, into: &results)
        atPoint.append(Double(nanoseconds() - start))
    }
    // The planner with hysteresis, a client stepping from region to region.
    let planner = NearestPlanner(topology: venue)
    var monitored: [Int] = []
    var planTimes: [Double] = []
    for location in locations.prefix(5_000) {
        let start = nanoseconds()
        let plan = planner.plan(PlanRequest(location: location, monitored: monitored, now: Date(timeIntervalSince1970: 0)), using: search)
        planTimes.append(Double(nanoseconds() - start))
        monitored = plan.regions.map(\.region)
    }

    // SwiftGraph: full Dijkstra, fewer queries on big venues; every answer compared with ours.
    let baseline = Baseline(venue)
    let baselineQueries = size >= 1_000_000 ? 3 : size >= 100_000 ? 7 : size >= 10_000 ? 25 : 101
    var theirs: [Double] = []
    var identical = 0
    for source in sources.prefix(baselineQueries) {
        let start = nanoseconds()
        let expected = baseline.nearest(from: source, count: k, venue: venue)
        theirs.append(Double(nanoseconds() - start))
        let answer = search.nearestRegions(from: venue.location(ofRegion: source)!, count: k)
        if answer == expected {
            identical += 1
        } else {
            failures += 1
            print(
                "MISMATCH from \(venue.regions[source].id):\n  ours   \(answer.map { "\(venue.regions[$0.region].id)=\($0.distance)" })\n  theirs \(expected.map { "\(venue.regions[$0.region].id)=\($0.distance)" })"
            )
        }
    }
    let oursMedian = median(ours)
    let theirsMedian = median(theirs)
    print(
        String(format: "%-9d %-7d %-10d ", size, levels, venue.nodeCount)
            + format(loadTime).padding(toLength: 10, withPad: " ", startingAt: 0)
            + String(format: "%-12.0f ", memoryPerRegion)
            + format(oursMedian).padding(toLength: 12, withPad: " ", startingAt: 0) + " "
            + format(percentile(ours, 0.99)).padding(toLength: 10, withPad: " ", startingAt: 0) + " "
            + format(median(atPoint)).padding(toLength: 13, withPad: " ", startingAt: 0) + " "
            + format(theirsMedian).padding(toLength: 15, withPad: " ", startingAt: 0) + " "
            + String(format: "%-8.0f ", theirsMedian / oursMedian)
            + "\(identical)/\(theirs.count)".padding(toLength: 10, withPad: " ", startingAt: 0) + " "
            + format(median(planTimes))
    )
}
print(String(repeating: "-", count: 118))
print("ours: median/p99 of 20,000 nearest-\(k) queries from random regions (scratch reused); at-point: snap X,Y,LEVEL + query;")
print("SwiftGraph: WeightedGraph<UInt32, Double>.dijkstra(root:startDistance:) + sort by (edge distance, id), median of the queries shown;")
print(
    "ratio = SwiftGraph median / ours median; identical = answers equal in ids and distances; heap/region = growth of the heap in use (mallinfo2) while loading"
)
print("over the load (a fresh venue each time) / regions; plan = NearestPlanner.plan with hysteresis (budget 20, one pinned region).")
if failures > 0 {
    print("FAILED: \(failures) answers differ from SwiftGraph's")
    exit(1)
}
