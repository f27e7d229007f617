/// A uniform grid per level over the walkable links, to snap a position onto the nearest link.
///
/// Each same-level link is a segment between its two nodes; a node with no same-level link is a
/// segment of length 0, so every node of a level can be snapped to.
struct SegmentIndex: Sendable {
    /// One grid per level (by level index); nil when the level has no node.
    var grids: [Grid?]

    struct Segment: Sendable {
        var a: Int32
        var b: Int32
        var weight: Double
    }

    /// A level's segments and the grid over them (its ids index `segments`).
    struct Grid: Sendable {
        var cells: UniformGrid
        var segments: [Segment]
    }

    /// The nearest point on a link of `level`: the segment, the fraction along it from `a` to
    /// `b`, and the straight-line distance to it.
    struct Hit {
        var segment: Segment
        var fraction: Double
        var distance: Double
        var x: Double
        var y: Double
    }

    init(graph: WalkingGraph, levelCount: Int) {
        var segmentsByLevel = [[Segment]](repeating: [], count: levelCount)
        var hasSameLevelLink = [Bool](repeating: false, count: graph.nodeCount)
        for node in 0..<graph.nodeCount {
            for edge in Int(graph.offsets[node])..<Int(graph.offsets[node + 1]) {
                let other = Int(graph.targets[edge])
                guard graph.level[other] == graph.level[node] else { continue }
                hasSameLevelLink[node] = true
                if node < other || (node == other) {
                    segmentsByLevel[Int(graph.level[node])].append(Segment(a: Int32(node), b: Int32(other), weight: graph.weights[edge]))
                }
            }
        }
        for node in 0..<graph.nodeCount where !hasSameLevelLink[node] {
            segmentsByLevel[Int(graph.level[node])].append(Segment(a: Int32(node), b: Int32(node), weight: 0))
        }
        grids = segmentsByLevel.map { segments in
            segments.isEmpty ? nil : Grid(segments: segments, graph: graph)
        }
    }

    /// The nearest point of `level`'s walkable links to (x, y); nil when the level has none.
    func nearest(x: Double, y: Double, level: Int, graph: WalkingGraph) -> Hit? {
        guard level >= 0, level < grids.count, let grid = grids[level] else { return nil }
        return grid.nearest(x: x, y: y, graph: graph)
    }
}

extension SegmentIndex.Grid {
    init(segments: [SegmentIndex.Segment], graph: WalkingGraph) {
        let cells = UniformGrid(
            count: segments.count,
            extent: { index in
                let (a, b) = (Int(segments[index].a), Int(segments[index].b))
                let (ax, bx, ay, by) = (graph.x[a], graph.x[b], graph.y[a], graph.y[b])
                return (Swift.min(ax, bx)...Swift.max(ax, bx), Swift.min(ay, by)...Swift.max(ay, by))
            }, id: { Int32($0) })
        self.init(cells: cells, segments: segments)
    }

    /// Searches rings of cells around the point until no unvisited cell can hold a nearer
    /// segment. Ties go to the lowest segment number, so the answer is deterministic.
    func nearest(x: Double, y: Double, graph: WalkingGraph) -> SegmentIndex.Hit? {
        let (minX, minY, cellSize, columns, rows) = (cells.minX, cells.minY, cells.cellSize, cells.columns, cells.rows)
        let cx = Int(((x - minX) / cellSize).rounded(.down))
        let cy = Int(((y - minY) / cellSize).rounded(.down))
        var best: SegmentIndex.Hit? = nil
        var bestID = Int32.max
        // Rings needed to cover the whole grid from this cell, at most.
        let farthest = Swift.max(abs(cx), abs(cx - columns + 1), abs(cy), abs(cy - rows + 1))
        var ring = 0
        while ring <= farthest {
            let r0 = cy - ring
            let r1 = cy + ring
            let c0 = cx - ring
            let c1 = cx + ring
            if r1 >= 0, r0 < rows, c1 >= 0, c0 < columns {
                for row in Swift.max(r0, 0)...Swift.min(r1, rows - 1) {
                    let onEdgeRow = row == r0 || row == r1
                    let step = onEdgeRow ? 1 : Swift.max(c1 - c0, 1)
                    var column = c0
                    while column <= c1 {
                        if column >= 0, column < columns {
                            let cell = row * columns + column
                            for slot in Int(cells.cellStart[cell])..<Int(cells.cellStart[cell + 1]) {
                                let id = cells.ids[slot]
                                let hit = Self.project(x: x, y: y, onto: segments[Int(id)], graph: graph)
                                if let current = best {
                                    if hit.distance < current.distance || (hit.distance == current.distance && id < bestID) {
                                        best = hit
                                        bestID = id
                                    }
                                } else {
                                    best = hit
                                    bestID = id
                                }
                            }
                        }
                        column += step
                    }
                }
            }
            // Every cell of ring + 1 is at least `ring * cellSize` away from the point.
            if let best, best.distance <= Double(ring) * cellSize { break }
            ring += 1
        }
        return best
    }

    static func project(x: Double, y: Double, onto segment: SegmentIndex.Segment, graph: WalkingGraph) -> SegmentIndex.Hit {
        let ax = graph.x[Int(segment.a)]
        let ay = graph.y[Int(segment.a)]
        let bx = graph.x[Int(segment.b)]
        let by = graph.y[Int(segment.b)]
        let dx = bx - ax
        let dy = by - ay
        let lengthSquared = dx * dx + dy * dy
        var t = 0.0
        if lengthSquared > 0 {
            t = Swift.min(1, Swift.max(0, ((x - ax) * dx + (y - ay) * dy) / lengthSquared))
        }
        let px = ax + t * dx
        let py = ay + t * dy
        let distance = ((x - px) * (x - px) + (y - py) * (y - py)).squareRoot()
        return SegmentIndex.Hit(segment: segment, fraction: t, distance: distance, x: px, y: py)
    }
}
