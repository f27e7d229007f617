/// The snapping segments of each room: a link belongs to the room that holds its middle (a link
/// from a room's centre to its door lies inside it; a node alone is a segment of length 0).
///
/// ``Topology/snap(_:)`` uses it so that a position is never snapped through a wall onto another
/// room's link while a link of its own room exists.
struct RoomSegments: Sendable {
    /// Per room index: its segments.
    let segments: [[SegmentIndex.Segment]]
    let rooms: RoomIndex
    /// Level index → level id.
    let levelIDs: [String]

    init(rooms: RoomIndex, segments index: SegmentIndex, graph: WalkingGraph, levels: [Level]) {
        self.rooms = rooms
        levelIDs = levels.map(\.id)
        var byRoom = [[SegmentIndex.Segment]](repeating: [], count: rooms.areas.count)
        if !rooms.areas.isEmpty {
            for (level, grid) in index.grids.enumerated() {
                guard let grid else { continue }
                for segment in grid.segments {
                    let (x, y) = Self.middle(segment, graph: graph)
                    if let room = rooms.room(x: x, y: y, level: levels[level].id) { byRoom[room].append(segment) }
                }
            }
        }
        self.segments = byRoom
    }

    static func middle(_ segment: SegmentIndex.Segment, graph: WalkingGraph) -> (Double, Double) {
        let (a, b) = (Int(segment.a), Int(segment.b))
        return ((graph.x[a] + graph.x[b]) / 2, (graph.y[a] + graph.y[b]) / 2)
    }

    /// The nearest segment of `room` to (x, y) when `hit` (the level's nearest) lies in another
    /// room and `room` has segments of its own; nil to keep `hit`.
    func nearest(x: Double, y: Double, room: Int, hit: SegmentIndex.Hit, graph: WalkingGraph) -> SegmentIndex.Hit? {
        let own = segments[room]
        guard !own.isEmpty else { return nil }
        let (mx, my) = Self.middle(hit.segment, graph: graph)
        let level = rooms.areas[room].level
        if rooms.room(x: mx, y: my, level: level) == room { return nil }
        var best: SegmentIndex.Hit? = nil
        for segment in own {
            let candidate = SegmentIndex.Grid.project(x: x, y: y, onto: segment, graph: graph)
            if best == nil || candidate.distance < best!.distance { best = candidate }
        }
        return best
    }
}
