extension PositionEstimator {
    /// The radio evidence's log likelihood, −Σ log1p(z²) over the anchors, at every point of a grid
    /// (row-major), in `Float` with ``FastLog``: the ``PositionArithmetic/fast`` form of the inner
    /// loop of `posterior(on:…)`.
    ///
    /// Per anchor, z = (rssi − expected)·precision is affine in log₂ d² (d² = dx² + dy² + dz²,
    /// at least the minimum distance squared), so each point costs one add, a max, two fast logs
    /// and three multiply-adds; dx² is computed once per column and dy² + dz² once per row.
    static func anchorLogLikelihoods(
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
                // Σ log₂(1 + z²) → −Σ ln(1 + z²).
                for index in sums.indices { sums[index] *= -0.693_147_18 }
            }
        }
        return sums
    }
}
