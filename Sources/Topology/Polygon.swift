/// A simple polygon in local metres: its vertices in order, the closing edge implied.
public struct Polygon: Sendable, Hashable {
    /// The vertices as (x, y), without the first repeated at the end.
    public var points: [PlanarPoint]

    public init(_ points: [PlanarPoint]) {
        var points = points
        if points.count > 1, points.first == points.last { points.removeLast() }
        self.points = points
    }

    /// Whether (x, y) lies inside or on the outline (even-odd rule; a point on an edge counts).
    public func contains(x: Double, y: Double) -> Bool {
        guard points.count >= 3 else { return false }
        var inside = false
        var j = points.count - 1
        for i in points.indices {
            let (a, b) = (points[i], points[j])
            if Self.distanceSquared(x: x, y: y, toSegment: a, b) < 1e-12 { return true }
            if (a.y > y) != (b.y > y), x < (b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    /// The enclosed area in square metres (always positive).
    public var area: Double {
        var twice = 0.0
        for i in points.indices {
            let (a, b) = (points[i], points[(i + 1) % points.count])
            twice += a.x * b.y - b.x * a.y
        }
        return abs(twice) / 2
    }

    /// The straight-line distance from (x, y) to the outline.
    public func distanceToBoundary(x: Double, y: Double) -> Double {
        var best = Double.infinity
        for i in points.indices {
            best = Swift.min(best, Self.distanceSquared(x: x, y: y, toSegment: points[i], points[(i + 1) % points.count]))
        }
        return best.squareRoot()
    }

    /// The first pair of edges that cross (not neighbours sharing a vertex), as edge indices; nil
    /// when the outline is simple. Quadratic: rooms have tens of vertices.
    public func selfIntersection() -> (Int, Int)? {
        let n = points.count
        guard n >= 4 else { return nil }
        for i in 0..<n {
            for j in (i + 1)..<n {
                if j == i + 1 || (i == 0 && j == n - 1) { continue }
                if Self.segmentsIntersect(points[i], points[(i + 1) % n], points[j], points[(j + 1) % n]) { return (i, j) }
            }
        }
        return nil
    }

    /// A point well inside the polygon: the centroid when it is inside, else the middle of the
    /// widest run of a horizontal line through the polygon's middle height.
    public var interiorPoint: PlanarPoint {
        var cx = 0.0
        var cy = 0.0
        var twice = 0.0
        for i in points.indices {
            let (a, b) = (points[i], points[(i + 1) % points.count])
            let cross = a.x * b.y - b.x * a.y
            twice += cross
            cx += (a.x + b.x) * cross
            cy += (a.y + b.y) * cross
        }
        if twice != 0 {
            let centroid = PlanarPoint(x: cx / (3 * twice), y: cy / (3 * twice))
            if contains(x: centroid.x, y: centroid.y), distanceToBoundary(x: centroid.x, y: centroid.y) > 1e-6 { return centroid }
        }
        let ys = points.map(\.y)
        let y = ((ys.min() ?? 0) + (ys.max() ?? 0)) / 2
        var crossings: [Double] = []
        for i in points.indices {
            let (a, b) = (points[i], points[(i + 1) % points.count])
            if (a.y > y) != (b.y > y) { crossings.append((b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x) }
        }
        crossings.sort()
        var best = PlanarPoint(x: points.first?.x ?? 0, y: y)
        var widest = -1.0
        var index = 0
        while index + 1 < crossings.count {
            if crossings[index + 1] - crossings[index] > widest {
                widest = crossings[index + 1] - crossings[index]
                best = PlanarPoint(x: (crossings[index] + crossings[index + 1]) / 2, y: y)
            }
            index += 2
        }
        return best
    }

    static func distanceSquared(x: Double, y: Double, toSegment a: PlanarPoint, _ b: PlanarPoint) -> Double {
        let (dx, dy) = (b.x - a.x, b.y - a.y)
        let length = dx * dx + dy * dy
        let t = length > 0 ? Swift.min(1, Swift.max(0, ((x - a.x) * dx + (y - a.y) * dy) / length)) : 0
        let (px, py) = (a.x + t * dx - x, a.y + t * dy - y)
        return px * px + py * py
    }

    /// Whether segments p1p2 and q1q2 share a point.
    static func segmentsIntersect(_ p1: PlanarPoint, _ p2: PlanarPoint, _ q1: PlanarPoint, _ q2: PlanarPoint) -> Bool {
        func orientation(_ a: PlanarPoint, _ b: PlanarPoint, _ c: PlanarPoint) -> Double {
            (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
        }
        func onSegment(_ a: PlanarPoint, _ b: PlanarPoint, _ c: PlanarPoint) -> Bool {
            Swift.min(a.x, b.x) <= c.x && c.x <= Swift.max(a.x, b.x) && Swift.min(a.y, b.y) <= c.y && c.y <= Swift.max(a.y, b.y)
        }
        let d1 = orientation(q1, q2, p1)
        let d2 = orientation(q1, q2, p2)
        let d3 = orientation(p1, p2, q1)
        let d4 = orientation(p1, p2, q2)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        if d1 == 0, onSegment(q1, q2, p1) { return true }
        if d2 == 0, onSegment(q1, q2, p2) { return true }
        if d3 == 0, onSegment(p1, p2, q1) { return true }
        if d4 == 0, onSegment(p1, p2, q2) { return true }
        return false
    }
}

/// A point of a level's plane in metres (east, north), without the level.
public struct PlanarPoint: Sendable, Hashable {
    public var x: Double
    public var y: Double
}
