/// Exact walking-distance queries over a ``Topology``: a Dijkstra search that stops as soon as
/// the answer is known, with scratch memory reused across queries.
///
/// The search stamps nodes with a query number instead of clearing its arrays, keeps its heap
/// between queries, and stops once the k-th best region edge distance is below the frontier
/// minus the largest region radius, so a nearest-20 query touches a few dozen nodes whatever
/// the venue's size. The answers equal those of a full Dijkstra over the same graph (ties
/// broken by region id).
///
/// Not thread-safe: use one per task or thread (it costs about 17 bytes per graph node).
public final class WalkingDistanceSearch {
    /// The venue this search runs on.
    public let topology: Topology
    private let nodeCount: Int
    private let distance: UnsafeMutablePointer<Double>
    private let reached: UnsafeMutablePointer<UInt32>
    private let settled: UnsafeMutablePointer<UInt32>
    private var epoch: UInt32 = 0
    private var heap: DistanceHeap

    public init(topology: Topology) {
        self.topology = topology
        nodeCount = topology.graph.nodeCount
        let capacity = Swift.max(nodeCount, 1)
        distance = .allocate(capacity: capacity)
        reached = .allocate(capacity: capacity)
        reached.initialize(repeating: 0, count: capacity)
        settled = .allocate(capacity: capacity)
        settled.initialize(repeating: 0, count: capacity)
        heap = DistanceHeap(capacity: 64)
    }

    deinit {
        distance.deallocate()
        reached.deallocate()
        settled.deallocate()
        heap.deallocate()
    }

    /// The `count` regions nearest to `location` by walking distance to their edge, nearest
    /// first, ties broken by region id. Regions without a position and regions not reachable
    /// from the location are never returned.
    public func nearestRegions(from location: GraphLocation, count: Int) -> [RegionDistance] {
        var results: [RegionDistance] = []
        nearestRegions(from: location, count: count, into: &results)
        return results
    }

    /// Like ``nearestRegions(from:count:)``, reusing `results`' storage (it is cleared first).
    public func nearestRegions(from location: GraphLocation, count: Int, into results: inout [RegionDistance]) {
        results.removeAll(keepingCapacity: true)
        guard count > 0, nodeCount > 0 else { return }
        results.reserveCapacity(count)
        let graph = topology.graph
        let maximumRadius = topology.maximumRadius
        start(from: location)
        var ranks: [Int32] = []
        ranks.reserveCapacity(count)
        graph.offsets.withUnsafeBufferPointer { offsets in
            graph.targets.withUnsafeBufferPointer { targets in
                graph.weights.withUnsafeBufferPointer { weights in
                    graph.region.withUnsafeBufferPointer { regionOf in
                        graph.radius.withUnsafeBufferPointer { radius in
                            graph.rank.withUnsafeBufferPointer { rank in
                                while let (d, node) = heap.popMin() {
                                    let n = Int(node)
                                    if settled[n] == epoch { continue }
                                    settled[n] = epoch
                                    if results.count == count, d - maximumRadius > results[count - 1].distance { break }
                                    let region = regionOf[n]
                                    if region >= 0 {
                                        let edge = Swift.max(0, d - radius[n])
                                        let r = rank[n]
                                        if results.count < count || edge < results[count - 1].distance
                                            || (edge == results[count - 1].distance && r < ranks[count - 1])
                                        {
                                            // Insertion into the short sorted list.
                                            var index = results.count
                                            if results.count == count {
                                                results.removeLast()
                                                ranks.removeLast()
                                                index -= 1
                                            }
                                            while index > 0,
                                                edge < results[index - 1].distance
                                                    || (edge == results[index - 1].distance && r < ranks[index - 1])
                                            {
                                                index -= 1
                                            }
                                            results.insert(RegionDistance(region: Int(region), distance: edge), at: index)
                                            ranks.insert(r, at: index)
                                        }
                                    }
                                    for edgeIndex in Int(offsets[n])..<Int(offsets[n + 1]) {
                                        let next = Int(targets[edgeIndex])
                                        if settled[next] == epoch { continue }
                                        let candidate = d + weights[edgeIndex]
                                        if reached[next] != epoch || candidate < distance[next] {
                                            reached[next] = epoch
                                            distance[next] = candidate
                                            heap.push(candidate, Int32(next))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Walking distances from `location` to the edges of the given regions (nil for a region
    /// without a position or not reachable), searching only as far as the farthest of them.
    public func distances(from location: GraphLocation, toRegions wanted: [Int]) -> [Double?] {
        var answers = [Double?](repeating: nil, count: wanted.count)
        let graph = topology.graph
        var remaining = 0
        var slotByNode: [Int32: [Int]] = [:]
        for (slot, region) in wanted.enumerated() {
            let node = topology.regionNode[region]
            guard node >= 0 else { continue }
            slotByNode[node, default: []].append(slot)
            remaining += 1
        }
        guard remaining > 0 else { return answers }
        start(from: location)
        while remaining > 0, let (d, node) = heap.popMin() {
            let n = Int(node)
            if settled[n] == epoch { continue }
            settled[n] = epoch
            if let slots = slotByNode[node] {
                for slot in slots { answers[slot] = Swift.max(0, d - graph.radius[n]) }
                remaining -= slots.count
            }
            for edgeIndex in Int(graph.offsets[n])..<Int(graph.offsets[n + 1]) {
                let next = Int(graph.targets[edgeIndex])
                if settled[next] == epoch { continue }
                let candidate = d + graph.weights[edgeIndex]
                if reached[next] != epoch || candidate < distance[next] {
                    reached[next] = epoch
                    distance[next] = candidate
                    heap.push(candidate, Int32(next))
                }
            }
        }
        return answers
    }

    /// Starts a new query: a fresh epoch, an empty heap, and the location's nodes seeded.
    private func start(from location: GraphLocation) {
        epoch &+= 1
        if epoch == 0 {
            reached.update(repeating: 0, count: nodeCount)
            settled.update(repeating: 0, count: nodeCount)
            epoch = 1
        }
        heap.removeAll()
        seed(location.nodeA, location.distanceToA)
        if location.nodeB >= 0 { seed(location.nodeB, location.distanceToB) }
    }

    private func seed(_ node: Int32, _ d: Double) {
        let n = Int(node)
        guard n >= 0, n < nodeCount else { return }
        if reached[n] != epoch || d < distance[n] {
            reached[n] = epoch
            distance[n] = d
            heap.push(d, node)
        }
    }
}

@available(*, unavailable, message: "a WalkingDistanceSearch holds per-query scratch memory: use one per task")
extension WalkingDistanceSearch: Sendable {}

/// A binary min-heap of (distance, node) pairs on manually managed storage, with lazy deletion
/// (a node may be in it several times; the search skips settled ones).
struct DistanceHeap {
    private var keys: UnsafeMutablePointer<Double>
    private var nodes: UnsafeMutablePointer<Int32>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        keys = .allocate(capacity: capacity)
        nodes = .allocate(capacity: capacity)
    }

    func deallocate() {
        keys.deallocate()
        nodes.deallocate()
    }

    mutating func removeAll() { count = 0 }

    mutating func push(_ key: Double, _ node: Int32) {
        if count == capacity { grow() }
        var index = count
        count += 1
        while index > 0 {
            let parent = (index - 1) >> 1
            if keys[parent] <= key { break }
            keys[index] = keys[parent]
            nodes[index] = nodes[parent]
            index = parent
        }
        keys[index] = key
        nodes[index] = node
    }

    mutating func popMin() -> (Double, Int32)? {
        guard count > 0 else { return nil }
        let top = (keys[0], nodes[0])
        count -= 1
        if count > 0 {
            let key = keys[count]
            let node = nodes[count]
            var index = 0
            while true {
                var child = 2 * index + 1
                if child >= count { break }
                if child + 1 < count, keys[child + 1] < keys[child] { child += 1 }
                if keys[child] >= key { break }
                keys[index] = keys[child]
                nodes[index] = nodes[child]
                index = child
            }
            keys[index] = key
            nodes[index] = node
        }
        return top
    }

    private mutating func grow() {
        let newCapacity = capacity * 2
        let newKeys = UnsafeMutablePointer<Double>.allocate(capacity: newCapacity)
        let newNodes = UnsafeMutablePointer<Int32>.allocate(capacity: newCapacity)
        newKeys.initialize(from: keys, count: count)
        newNodes.initialize(from: nodes, count: count)
        keys.deallocate()
        nodes.deallocate()
        keys = newKeys
        nodes = newNodes
        capacity = newCapacity
    }
}
