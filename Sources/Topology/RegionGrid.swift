/// A uniform grid per level over the placed regions' centres, for straight-line proximity
/// queries (which regions could the client be in, given how uncertain its position is).
struct RegionGrid: Sendable {
    var grids: [UniformGrid?]

    init(regions: [Region], levelIndex: [String: Int], levelCount: Int) {
        var byLevel = [[Int]](repeating: [], count: levelCount)
        for (index, region) in regions.enumerated() {
            if let position = region.position, let level = levelIndex[position.level] { byLevel[level].append(index) }
        }
        grids = byLevel.map { members in
            guard !members.isEmpty else { return nil }
            return UniformGrid(
                count: members.count,
                extent: { member in
                    let p = regions[members[member]].position!
                    return (p.x...p.x, p.y...p.y)
                }, id: { Int32(members[$0]) })
        }
    }

    /// Regions on `level` whose edge is within `radius` of (x, y) in a straight line.
    func regions(nearX x: Double, y: Double, level: Int, within radius: Double, maximumRadius: Double, regions all: [Region]) -> [Int] {
        guard level >= 0, level < grids.count, let grid = grids[level], radius >= 0 else { return [] }
        let reach = radius + maximumRadius
        let c0 = max(0, Int(((x - reach - grid.minX) / grid.cellSize).rounded(.down)))
        let c1 = min(grid.columns - 1, Int(((x + reach - grid.minX) / grid.cellSize).rounded(.down)))
        let r0 = max(0, Int(((y - reach - grid.minY) / grid.cellSize).rounded(.down)))
        let r1 = min(grid.rows - 1, Int(((y + reach - grid.minY) / grid.cellSize).rounded(.down)))
        guard c0 <= c1, r0 <= r1 else { return [] }
        var found: [Int] = []
        for row in r0...r1 {
            for column in c0...c1 {
                let cell = row * grid.columns + column
                for slot in Int(grid.cellStart[cell])..<Int(grid.cellStart[cell + 1]) {
                    let index = Int(grid.ids[slot])
                    let p = all[index].position!
                    let centre = ((p.x - x) * (p.x - x) + (p.y - y) * (p.y - y)).squareRoot()
                    if centre - all[index].radius <= radius { found.append(index) }
                }
            }
        }
        return found.sorted()
    }
}
