extension PositionEstimator {
    /// The radio evidence's Σ log₂(1 + z²) over the anchors at every point of a grid (row-major,
    /// `grid.columns` a row), in `Float` with ``FastLog``: the ``PositionArithmetic/fast`` form of
    /// the inner loop of `posterior(on:…)`. The log likelihood is −ln 2 times it.
    ///
    /// Per anchor, z = (rssi − expected)·precision is affine in log₂ d² (d² = dx² + dy² + dz²,
    /// at least the minimum distance squared), so each point costs one add, a max, two fast logs
    /// and three multiply-adds; dx² is computed once per column and dy² + dz² once per row.
    static func anchorLog2Sums(
        terms: [AnchorTerm], dz2: [Double], floorLoss: [Double], minimumDistance2: Double,
        grid: (originX: Double, originY: Double, step: Double, columns: Int, rows: Int)
    ) -> [Float] {
        let columns = grid.columns
        var sums = [Float](repeating: 0, count: columns * grid.rows)
        var dx2 = [Float](repeating: 0, count: columns)
        let floor = Float(minimumDistance2)
        sums.withUnsafeMutableBufferPointer { sums in
            dx2.withUnsafeMutableBufferPointer { dx2 in
                for (i, term) in terms.enumerated() {
                    for column in 0..<columns {
                        let dx = grid.originX + Double(column) * grid.step - term.x
                        dx2[column] = Float(dx * dx)
                    }
                    // expected = reference − 5·exponent·log10 d² − floorLoss, log10 d² = log₂ d² · log10 2.
                    let offset = Float((term.rssi - term.reference + floorLoss[i]) * term.precision)
                    let slope = Float(5 * term.exponent * 0.301_029_995_663_981_2 * term.precision)
                    for row in 0..<grid.rows {
                        let dy = grid.originY + Double(row) * grid.step - term.y
                        let rowTerm = Float(dy * dy + dz2[i])
                        let base = row &* columns
                        for column in 0..<columns {
                            let distance2 = max(dx2[column] + rowTerm, floor)
                            let z = offset + slope * FastLog.log2(distance2)
                            sums[base &+ column] += FastLog.log2(1 + z * z)
                        }
                    }
                }
            }
        }
        return sums
    }

    /// A posterior on a grid, summarised: its peak log density, Σ e^(log − peak) over the cells,
    /// and the mean and variance of the column and row index under it.
    struct GridMoments {
        var peak: Double
        var total: Double
        var meanColumn: Double
        var meanRow: Double
        var varianceColumn: Double
        var varianceRow: Double
    }

    /// The ``PositionArithmetic/fast`` posterior's moments, four cells at a time in `Float`.
    ///
    /// The log density of cell (row, column) is −ln 2 · `log2Sums` + `priorRow[row]` +
    /// `priorColumn[column]` (+ `constraintLogs`, when there are any); `columns` is a multiple of 4
    /// and the columns past the grid have a `priorColumn` of −∞, so they weigh nothing. The
    /// densities are e^(log − peak) (``FastExp``); the moments are summed per row and per column
    /// (the posterior's x and y moments are the columns' and the rows', since x depends on the
    /// column alone), so a cell costs one exp and two adds. Returns `nil` when no cell is finite.
    static func fastMoments(
        log2Sums: inout [Float], priorRow: [Float], priorColumn: [Float], constraintLogs: [Float]?, columns: Int, rows: Int
    ) -> GridMoments? {
        precondition(columns % 4 == 0 && priorColumn.count == columns && priorRow.count == rows && log2Sums.count == columns * rows)
        let chunks = columns / 4
        var peak4 = SIMD4<Float>(repeating: -.infinity)
        var rowSums = [Double](repeating: 0, count: rows)
        var columnSums = [SIMD4<Float>](repeating: .zero, count: chunks)
        log2Sums.withUnsafeMutableBytes { cells in
            priorColumn.withUnsafeBytes { priorColumn in
                let stride = MemoryLayout<SIMD4<Float>>.size
                // The log density, in place, and its peak.
                for row in 0..<rows {
                    let rowPrior = SIMD4<Float>(repeating: priorRow[row])
                    for chunk in 0..<chunks {
                        let at = (row &* chunks &+ chunk) &* stride
                        var log =
                            cells.loadUnaligned(fromByteOffset: at, as: SIMD4<Float>.self) * -0.693_147_18 + rowPrior
                            + priorColumn.loadUnaligned(fromByteOffset: chunk &* stride, as: SIMD4<Float>.self)
                        if let constraintLogs {
                            let index = (row &* chunks &+ chunk) &* 4
                            log += SIMD4(
                                constraintLogs[index], constraintLogs[index &+ 1], constraintLogs[index &+ 2], constraintLogs[index &+ 3])
                        }
                        cells.storeBytes(of: log, toByteOffset: at, as: SIMD4<Float>.self)
                        peak4 = peak4.replacing(with: log, where: log .> peak4)
                    }
                }
                let peak = peak4.max()
                guard peak.isFinite else { return }
                peak4 = SIMD4(repeating: peak)
                // Densities relative to the peak, summed per row and per column.
                columnSums.withUnsafeMutableBufferPointer { columnSums in
                    for row in 0..<rows {
                        var rowSum = SIMD4<Float>.zero
                        for chunk in 0..<chunks {
                            let at = (row &* chunks &+ chunk) &* stride
                            let density = FastExp.exp(cells.loadUnaligned(fromByteOffset: at, as: SIMD4<Float>.self) - peak4)
                            rowSum += density
                            columnSums[chunk] += density
                        }
                        rowSums[row] = Double(rowSum.sum())
                    }
                }
            }
        }
        let peak = peak4.max()
        guard peak.isFinite else { return nil }
        /// Σ w, the mean index and its variance, in `Double`, about the middle index (the sums'
        /// `Float` rounding then moves the variance by far less than it would about 0).
        func moments(_ weights: [Double]) -> (total: Double, mean: Double, variance: Double) {
            let middle = Double(weights.count - 1) / 2
            var total = 0.0
            var first = 0.0
            var second = 0.0
            for (index, weight) in weights.enumerated() {
                let offset = Double(index) - middle
                total += weight
                first += weight * offset
                second += weight * offset * offset
            }
            let mean = first / total
            return (total, middle + mean, second / total - mean * mean)
        }
        let byRow = moments(rowSums)
        let byColumn = moments((0..<columns).map { Double(columnSums[$0 / 4][$0 % 4]) })
        return GridMoments(
            peak: Double(peak), total: byRow.total, meanColumn: byColumn.mean, meanRow: byRow.mean, varianceColumn: byColumn.variance,
            varianceRow: byRow.variance)
    }
}
