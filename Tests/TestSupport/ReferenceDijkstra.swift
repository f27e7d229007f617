import Foundation

/// An independent oracle for the tests: reads the canonical JSON export (not the loader's
/// internals), runs a plain full Dijkstra over it, and ranks regions by walking distance to
/// their edge, ties broken by id. Snapping is brute force over every same-level link.
public struct ReferenceDijkstra {
    public struct RegionInfo {
        public var id: String
        public var x: Double?
        public var y: Double?
        public var level: String?
        public var radius: Double
        public var pinned: Bool
    }

    public var regions: [RegionInfo] = []
    var nodeIndex: [String: Int] = [:]
    var nodeX: [Double] = []
    var nodeY: [Double] = []
    var nodeLevel: [String] = []
    var adjacency: [[(Int, Double)]] = []
    var regionOfNode: [Int: Int] = [:]
    var links: [(Int, Int, Double)] = []

    public init(exportedJSON: String) throws {
        let object = try JSONSerialization.jsonObject(with: Data(exportedJSON.utf8)) as! [String: Any]
        func addNode(_ id: String, _ x: Double, _ y: Double, _ level: String) {
            nodeIndex[id] = nodeX.count
            nodeX.append(x)
            nodeY.append(y)
            nodeLevel.append(level)
            adjacency.append([])
        }
        for case let region as [String: Any] in object["regions"] as! [Any] {
            let info = RegionInfo(
                id: region["id"] as! String, x: region["x"] as? Double, y: region["y"] as? Double,
                level: region["level"] as? String, radius: region["radius"] as! Double,
                pinned: (region["tags"] as! [String]).contains("pinned")
            )
            if let x = info.x, let y = info.y, let level = info.level {
                regionOfNode[nodeX.count] = regions.count
                addNode(info.id, x, y, level)
            }
            regions.append(info)
        }
        for case let waypoint as [String: Any] in object["waypoints"] as! [Any] {
            addNode(waypoint["id"] as! String, waypoint["x"] as! Double, waypoint["y"] as! Double, waypoint["level"] as! String)
        }
        for case let link as [String: Any] in object["links"] as! [Any] {
            let a = nodeIndex[link["from"] as! String]!
            let b = nodeIndex[link["to"] as! String]!
            let d = link["distance"] as! Double
            adjacency[a].append((b, d))
            adjacency[b].append((a, d))
            links.append((a, b, d))
        }
    }

    /// Full Dijkstra from seeds (node, initial distance).
    public func distances(seeds: [(Int, Double)]) -> [Double] {
        var dist = [Double](repeating: .infinity, count: nodeX.count)
        var done = [Bool](repeating: false, count: nodeX.count)
        var heap: [(Double, Int)] = []
        func push(_ item: (Double, Int)) {
            heap.append(item)
            var i = heap.count - 1
            while i > 0, heap[(i - 1) / 2].0 > heap[i].0 {
                heap.swapAt(i, (i - 1) / 2)
                i = (i - 1) / 2
            }
        }
        func pop() -> (Double, Int) {
            let top = heap[0]
            heap[0] = heap[heap.count - 1]
            heap.removeLast()
            var i = 0
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var m = i
                if l < heap.count, heap[l].0 < heap[m].0 { m = l }
                if r < heap.count, heap[r].0 < heap[m].0 { m = r }
                if m == i { break }
                heap.swapAt(i, m)
                i = m
            }
            return top
        }
        for (node, d) in seeds where d < dist[node] {
            dist[node] = d
            push((d, node))
        }
        while !heap.isEmpty {
            let (d, n) = pop()
            if done[n] { continue }
            done[n] = true
            for (m, w) in adjacency[n] where d + w < dist[m] {
                dist[m] = d + w
                push((d + w, m))
            }
        }
        return dist
    }

    /// Every reachable placed region as (id, edge distance), sorted by distance then id.
    public func ranking(seeds: [(Int, Double)]) -> [(id: String, distance: Double)] {
        let dist = distances(seeds: seeds)
        var result: [(id: String, distance: Double)] = []
        for (node, region) in regionOfNode where dist[node].isFinite {
            result.append((regions[region].id, max(0, dist[node] - regions[region].radius)))
        }
        result.sort { ($0.distance, $0.id) < ($1.distance, $1.id) }
        return result
    }

    public func ranking(fromRegion id: String) -> [(id: String, distance: Double)] {
        ranking(seeds: [(nodeIndex[id]!, 0)])
    }

    /// Brute-force snap onto the nearest same-level link (or lone node), then rank.
    public func ranking(x: Double, y: Double, level: String) -> [(id: String, distance: Double)] {
        var best: (distance: Double, seeds: [(Int, Double)])? = nil
        var linked = Set<Int>()
        for (a, b, w) in links where nodeLevel[a] == level && nodeLevel[b] == level {
            linked.insert(a)
            linked.insert(b)
            let dx = nodeX[b] - nodeX[a]
            let dy = nodeY[b] - nodeY[a]
            let l2 = dx * dx + dy * dy
            let t = l2 > 0 ? min(1, max(0, ((x - nodeX[a]) * dx + (y - nodeY[a]) * dy) / l2)) : 0
            let px = nodeX[a] + t * dx
            let py = nodeY[a] + t * dy
            let d = ((x - px) * (x - px) + (y - py) * (y - py)).squareRoot()
            if best == nil || d < best!.distance {
                best = (d, t == 0 ? [(a, 0)] : t == 1 ? [(b, 0)] : [(a, t * w), (b, (1 - t) * w)])
            }
        }
        for node in nodeX.indices where nodeLevel[node] == level && !linked.contains(node) {
            let d = ((x - nodeX[node]) * (x - nodeX[node]) + (y - nodeY[node]) * (y - nodeY[node])).squareRoot()
            if best == nil || d < best!.distance { best = (d, [(node, 0)]) }
        }
        return ranking(seeds: best!.seeds)
    }
}
