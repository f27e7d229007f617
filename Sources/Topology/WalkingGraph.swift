/// The walkable graph in compressed sparse row form: placed regions and waypoints are nodes,
/// links are undirected edges stored in both directions.
///
/// Node `n`'s neighbours are `targets[offsets[n]..<offsets[n + 1]]` with the walking distances
/// `weights[…]`. Regions come first (node `regionNode[r]`), then waypoints.
struct WalkingGraph: Sendable {
    /// Per node: position and level index.
    var x: [Double]
    var y: [Double]
    var level: [Int32]
    /// Per node: the region index, or -1 for a waypoint.
    var region: [Int32]
    /// Per node: the region's radius (0 for waypoints).
    var radius: [Double]
    /// Per node: the region's rank in id order (ties are broken by it), or Int32.max.
    var rank: [Int32]
    var offsets: [Int32]
    var targets: [Int32]
    var weights: [Double]

    var nodeCount: Int { x.count }
    var edgeCount: Int { targets.count / 2 }

    /// Builds the adjacency from undirected edges `(a, b, weight)`.
    init(x: [Double], y: [Double], level: [Int32], region: [Int32], radius: [Double], rank: [Int32], edges: [(Int32, Int32, Double)]) {
        self.x = x
        self.y = y
        self.level = level
        self.region = region
        self.radius = radius
        self.rank = rank
        let n = x.count
        var degree = [Int32](repeating: 0, count: n + 1)
        for (a, b, _) in edges {
            degree[Int(a) + 1] += 1
            degree[Int(b) + 1] += 1
        }
        for index in 0..<n { degree[index + 1] += degree[index] }
        var cursor = degree
        var targets = [Int32](repeating: 0, count: edges.count * 2)
        var weights = [Double](repeating: 0, count: edges.count * 2)
        for (a, b, w) in edges {
            let i = Int(cursor[Int(a)])
            cursor[Int(a)] += 1
            targets[i] = b
            weights[i] = w
            let j = Int(cursor[Int(b)])
            cursor[Int(b)] += 1
            targets[j] = a
            weights[j] = w
        }
        self.offsets = degree
        self.targets = targets
        self.weights = weights
    }

    /// Connected components: a component number per node, and the size of each component.
    func components() -> (component: [Int32], sizes: [Int]) {
        var component = [Int32](repeating: -1, count: nodeCount)
        var sizes: [Int] = []
        var stack: [Int32] = []
        for start in 0..<nodeCount where component[start] < 0 {
            let number = Int32(sizes.count)
            var size = 0
            component[start] = number
            stack.append(Int32(start))
            while let node = stack.popLast() {
                size += 1
                for edge in Int(offsets[Int(node)])..<Int(offsets[Int(node) + 1]) {
                    let next = targets[edge]
                    if component[Int(next)] < 0 {
                        component[Int(next)] = number
                        stack.append(next)
                    }
                }
            }
            sizes.append(size)
        }
        return (component, sizes)
    }
}
