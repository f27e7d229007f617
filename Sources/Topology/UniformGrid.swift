/// A uniform grid over one level's items (region centres, link segments): the cells' geometry and
/// which items each cell holds, every item in each cell its extent touches. About two
/// items per cell, and never more than 4 million cells.
struct UniformGrid: Sendable {
    let minX: Double
    let minY: Double
    let cellSize: Double
    let columns: Int
    /// Rows of `columns` cells: as many as `cellStart` has cells for.
    var rows: Int { (cellStart.count - 1) / columns }
    /// Cell `c` holds `ids[cellStart[c]..<cellStart[c + 1]]`, in the order the items were given.
    let cellStart: [Int32]
    let ids: [Int32]

    /// An item's extent on each axis; a point's ranges hold one value each.
    typealias Extent = (x: ClosedRange<Double>, y: ClosedRange<Double>)

    /// Bins `count` (at least one) items; item `i` spans `extent(i)` and is stored as `id(i)`.
    init(count: Int, extent: (Int) -> Extent, id: (Int) -> Int32) {
        let extents = (0..<count).map(extent)
        var minX = Double.infinity
        var minY = Double.infinity
        var maxX = -Double.infinity
        var maxY = -Double.infinity
        for e in extents {
            minX = Swift.min(minX, e.x.lowerBound)
            maxX = Swift.max(maxX, e.x.upperBound)
            minY = Swift.min(minY, e.y.lowerBound)
            maxY = Swift.max(maxY, e.y.upperBound)
        }
        let width = Swift.max(maxX - minX, 1)
        let height = Swift.max(maxY - minY, 1)
        var cellSize = Swift.max((width * height / Double(count) * 2).squareRoot(), 0.5)
        while (width / cellSize + 1) * (height / cellSize + 1) > 4_000_000 { cellSize *= 2 }
        let columns = Int(width / cellSize) + 1
        let rows = Int(height / cellSize) + 1
        func cells(_ e: Extent) -> (columns: ClosedRange<Int>, rows: ClosedRange<Int>) {
            let c0 = Swift.min(columns - 1, Int((e.x.lowerBound - minX) / cellSize))
            let c1 = Swift.min(columns - 1, Int((e.x.upperBound - minX) / cellSize))
            let r0 = Swift.min(rows - 1, Int((e.y.lowerBound - minY) / cellSize))
            let r1 = Swift.min(rows - 1, Int((e.y.upperBound - minY) / cellSize))
            return (c0...c1, r0...r1)
        }
        var start = [Int32](repeating: 0, count: columns * rows + 1)
        for e in extents {
            let (cs, rs) = cells(e)
            for r in rs { for c in cs { start[r * columns + c + 1] += 1 } }
        }
        for c in 0..<(columns * rows) { start[c + 1] += start[c] }
        var cursor = start
        var ids = [Int32](repeating: 0, count: Int(start[columns * rows]))
        for (index, e) in extents.enumerated() {
            let (cs, rs) = cells(e)
            for r in rs {
                for c in cs {
                    ids[Int(cursor[r * columns + c])] = id(index)
                    cursor[r * columns + c] += 1
                }
            }
        }
        self.minX = minX
        self.minY = minY
        self.cellSize = cellSize
        self.columns = columns
        self.cellStart = start
        self.ids = ids
    }
}
