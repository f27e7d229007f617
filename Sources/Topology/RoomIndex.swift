/// Which room a point is in: the smallest ``Area`` of its level containing it (rooms may nest, e.g.
/// a stair well drawn inside a hall: the inner one wins).
///
/// Linear per level: venues have tens to hundreds of rooms; precomputed answers (a region's room)
/// are kept by ``Topology``.
struct RoomIndex: Sendable {
    let areas: [Area]
    /// Per level id: area indices, smallest first.
    let byLevel: [String: [Int]]

    init(areas: [Area]) {
        self.areas = areas
        var byLevel: [String: [Int]] = [:]
        for (index, area) in areas.enumerated() { byLevel[area.level, default: []].append(index) }
        let sizes = areas.map(\.polygon.area)
        self.byLevel = byLevel.mapValues { $0.sorted { sizes[$0] < sizes[$1] || (sizes[$0] == sizes[$1] && $0 < $1) } }
    }

    /// The index of the smallest room containing the point, nil when it is in none.
    func room(at point: VenuePoint) -> Int? {
        room(x: point.x, y: point.y, level: point.level)
    }

    func room(x: Double, y: Double, level: String) -> Int? {
        guard let candidates = byLevel[level] else { return nil }
        return candidates.first { areas[$0].polygon.contains(x: x, y: y) }
    }
}
