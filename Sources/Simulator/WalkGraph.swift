public import Topology

/// The venue's walkable graph as walkers use it: nodes (positioned regions and waypoints) with
/// their coordinates, links with their walking distances, and shortest paths between nodes.
public struct WalkGraph: Sendable {
    /// One node: a positioned region or a waypoint.
    public struct Node: Sendable, Hashable {
        public var id: String
        public var point: VenuePoint
        /// Index into ``Topology/regions`` when the node is a region.
        public var region: Int?
    }

    public let nodes: [Node]
    /// Per node: (neighbour, walking distance).
    public let neighbours: [[(node: Int, distance: Double)]]
    /// Nodes that are regions (walkers' destinations).
    public let regionNodes: [Int]

    /// Builds the graph from the topology's regions, waypoints and links.
    public init(topology: Topology) throws(SimulationError) {
        var nodes: [Node] = []
        var indexByID: [String: Int] = [:]
        for (index, region) in topology.regions.enumerated() {
            guard let position = region.position else { continue }
            indexByID[region.id] = nodes.count
            nodes.append(Node(id: region.id, point: position, region: index))
        }
        for waypoint in topology.waypoints where indexByID[waypoint.id] == nil {
            indexByID[waypoint.id] = nodes.count
            nodes.append(Node(id: waypoint.id, point: waypoint.position, region: nil))
        }
        var neighbours = [[(node: Int, distance: Double)]](repeating: [], count: nodes.count)
        for link in topology.links {
            guard let a = indexByID[link.from], let b = indexByID[link.to], a != b else { continue }
            neighbours[a].append((b, link.distance))
            neighbours[b].append((a, link.distance))
        }
        let regionNodes = nodes.indices.filter { nodes[$0].region != nil && !neighbours[$0].isEmpty }
        guard regionNodes.count >= 2 else {
            throw .unsuitableTopology(
                "walkers need at least two positioned regions joined by links; '\(topology.name)' has \(regionNodes.count)")
        }
        self.nodes = nodes
        self.neighbours = neighbours
        self.regionNodes = regionNodes
    }

    /// The node with this id (a region's or a waypoint's).
    public func node(id: String) -> Int? { nodes.firstIndex { $0.id == id } }

    /// The shortest path from `start` to `goal` (both included), or `nil` when unreachable.
    public func shortestPath(from start: Int, to goal: Int) -> [Int]? {
        if start == goal { return [start] }
        var distance = [Double](repeating: .infinity, count: nodes.count)
        var previous = [Int](repeating: -1, count: nodes.count)
        var done = [Bool](repeating: false, count: nodes.count)
        distance[start] = 0
        // A binary heap of (distance, node).
        var heap: [(Double, Int)] = [(0, start)]
        func push(_ item: (Double, Int)) {
            heap.append(item)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[child] < heap[parent] else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }
        func pop() -> (Double, Int) {
            let top = heap[0]
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                var parent = 0
                while true {
                    let left = 2 * parent + 1
                    let right = left + 1
                    var smallest = parent
                    if left < heap.count, heap[left] < heap[smallest] { smallest = left }
                    if right < heap.count, heap[right] < heap[smallest] { smallest = right }
                    if smallest == parent { break }
                    heap.swapAt(parent, smallest)
                    parent = smallest
                }
            }
            return top
        }
        while !heap.isEmpty {
            let (d, node) = pop()
            if done[node] { continue }
            done[node] = true
            if node == goal { break }
            for (next, weight) in neighbours[node] where !done[next] && d + weight < distance[next] {
                distance[next] = d + weight
                previous[next] = node
                push((d + weight, next))
            }
        }
        guard distance[goal].isFinite else { return nil }
        var path = [goal]
        while let last = path.last, last != start { path.append(previous[last]) }
        return path.reversed()
    }

    /// The walking distance of the link between two adjacent nodes.
    public func linkDistance(_ a: Int, _ b: Int) -> Double? {
        neighbours[a].first { $0.node == b }?.distance
    }
}
