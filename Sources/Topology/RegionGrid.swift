/// A uniform grid per level over the placed regions' centres, for straight-line proximity
/// queries (which regions could the client be in, given how uncertain its position is).
struct RegionGrid: Sendable {
    struct Grid: Sendable {
        var minX: Double
        var minY: Double
        var cellSize: Double
        var columns: Int
        var rows: Int
        var cellStart: [Int32]
        var regions: [Int32]
    }

    var grids: [Grid?]

    init(regions: [Region], levelIndex: [String: Int], levelCount: Int) {
        var byLevel = [[Int]](repeating: [], count: levelCount)
        for (index, region) in regions.enumerated() {
            if let position = region.position, let level = levelIndex[position.level] { byLevel[level].append(index) }
        }
        grids = byLevel.map { members in
            guard !members.isEmpty else { return nil }
            var minX = Double.infinity
            var minY = Double.infinity
            var maxX = -Double.infinity
            var maxY = -Double.infinity
            for index in members {
                let p = regions[index].position!
                minX = min(minX, p.x)
                maxX = max(maxX, p.x)
                minY = min(minY, p.y)
                maxY = max(maxY, p.y)
            }
            let width = max(maxX - minX, 1)
            let height = max(maxY - minY, 1)
            var cellSize = max((width * height / Double(members.count) * 2).squareRoot(), 0.5)
            while (width / cellSize + 1) * (height / cellSize + 1) > 4_000_000 { cellSize *= 2 }
            let columns = Int(width / cellSize) + 1
            let rows = Int(height / cellSize) + 1
            func cell(_ index: Int) -> Int {
                let p = regions[index].position!
                return min(rows - 1, Int((p.y - minY) / cellSize)) * columns + min(columns - 1, Int((p.x - minX) / cellSize))
            }
            var start = [Int32](repeating: 0, count: columns * rows + 1)
            for index in members { start[cell(index) + 1] += 1 }
            for c in 0..<(columns * rows) { start[c + 1] += start[c] }
            var cursor = start
            var ids = [Int32](repeating: 0, count: members.count)
            for index in members {
                let c = cell(index)
                ids[Int(cursor[c])] = Int32(index)
                cursor[c] += 1
            }
            return Grid(minX: minX, minY: minY, cellSize: cellSize, columns: columns, rows: rows, cellStart: start, regions: ids)
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
                    let index = Int(grid.regions[slot])
                    let p = all[index].position!
                    let centre = ((p.x - x) * (p.x - x) + (p.y - y) * (p.y - y)).squareRoot()
                    if centre - all[index].radius <= radius { found.append(index) }
                }
            }
        }
        return found.sorted()
    }
}
