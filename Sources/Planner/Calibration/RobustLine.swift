/// A robust straight line `y = intercept + slope · x` fitted by iteratively reweighted least
/// squares with Huber weights: residuals within `huber` robust standard deviations count fully,
/// larger ones by `huber · scale / |r|`, so a few wild points (a beacon moved, a person standing
/// in front of a gateway) cannot drag the line. The scale is re-estimated each round from the
/// median absolute residual.
///
/// Either parameter may be held fixed; the slope may be bounded (a path-loss exponent outside a
/// plausible range is clamped and the intercept refitted with the slope held there).
public struct RobustLine: Sendable, Hashable, Codable {
    public var intercept: Double
    public var slope: Double
    /// Robust standard deviation of the residuals (1.4826 × median |residual|).
    public var spread: Double
    /// Whether the slope had to be clamped to its bounds.
    public var clamped: Bool

    /// Fits `points` (x, y, weight). Needs at least one point; with fewer than two distinct x
    /// values (or `fixedSlope`) only the intercept is fitted, at `fallbackSlope` unless fixed.
    /// - Parameters:
    ///   - slopeRange: the slope is clamped into it.
    ///   - huber: the Huber threshold in robust standard deviations.
    ///   - minimumSpread: the scale never drops below this (keeps weights sane on exact data).
    ///   - slopePrior: a free slope is pulled towards `slope` as if by `strength` more units of
    ///     Σ weight · (x − mean x)² (ridge): with little spread in x the line keeps the prior's slope.
    ///   - scale: the residuals' standard deviation when it is known from elsewhere (then the
    ///     Huber threshold is `huber · scale`, not re-estimated from these points: points that are
    ///     expected values rather than readings, such as a censored fit's, would understate it).
    ///   - unweighted: points (by index) that always count fully: in a censored fit the pairs near
    ///     the sensitivity are heard only in their loud windows, so their residuals lean positive by
    ///     nature and capping them would bias the slope.
    public static func fit(
        _ points: [(x: Double, y: Double, weight: Double)], fixedIntercept: Double? = nil, fixedSlope: Double? = nil,
        slopePrior: (slope: Double, strength: Double)? = nil,
        fallbackSlope: Double, slopeRange: ClosedRange<Double>, huber: Double = 1.345, minimumSpread: Double = 0.5,
        minimumXSpread: Double = 0.1, iterations: Int = 12, scale knownScale: Double? = nil, unweighted: [Bool]? = nil
    ) -> RobustLine? {
        guard !points.isEmpty else { return nil }
        var robust = [Double](repeating: 1, count: points.count)
        var intercept = fixedIntercept ?? 0
        var slope = fixedSlope ?? fallbackSlope
        var clamped = false
        var scale = minimumSpread
        for _ in 0..<max(iterations, 1) {
            var sw = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
            for (i, p) in points.enumerated() {
                let w = p.weight * robust[i]
                sw += w
                sx += w * p.x
                sy += w * p.y
                sxx += w * p.x * p.x
                sxy += w * p.x * p.y
            }
            guard sw > 0 else { return nil }
            let meanX = sx / sw
            let varX = sxx / sw - meanX * meanX
            clamped = false
            switch (fixedIntercept, fixedSlope) {
            case (let a?, let b?):
                intercept = a
                slope = b
            case (nil, let b?):
                slope = b
                intercept = (sy - b * sx) / sw
            case (let a?, nil):
                // Slope through the fixed intercept: minimise Σ w (y − a − b x)².
                slope = sxx > 0 ? (sxy - a * sx) / sxx : fallbackSlope
                if !slopeRange.contains(slope) {
                    slope = min(max(slope, slopeRange.lowerBound), slopeRange.upperBound)
                    clamped = true
                }
                intercept = a
            case (nil, nil):
                if let prior = slopePrior, prior.strength > 0 {
                    slope = ((sxy - sx * sy / sw) + prior.strength * prior.slope) / (max(sxx - sx * sx / sw, 0) + prior.strength)
                } else if varX.squareRoot() < minimumXSpread {
                    slope = fallbackSlope
                } else {
                    slope = (sxy / sw - meanX * sy / sw) / varX
                }
                if !slopeRange.contains(slope) {
                    slope = min(max(slope, slopeRange.lowerBound), slopeRange.upperBound)
                    clamped = true
                }
                intercept = (sy - slope * sx) / sw
            }
            if let knownScale {
                scale = max(knownScale, minimumSpread)
            } else {
                var residuals = points.map { abs($0.y - intercept - slope * $0.x) }
                scale = max(1.4826 * Self.median(&residuals), minimumSpread)
            }
            let threshold = huber * scale
            for (i, p) in points.enumerated() where unweighted?[i] != true {
                let r = abs(p.y - intercept - slope * p.x)
                robust[i] = r <= threshold ? 1 : threshold / r
            }
        }
        return RobustLine(intercept: intercept, slope: slope, spread: scale, clamped: clamped)
    }

    /// The slope several point sets share: each set's own robust slope (through its fixed
    /// intercept, when it has one), weighted by its Σ weight · (x − mean x)², so sets spread over a
    /// wide range of x count most. Nil when together they have next to no spread in x.
    public static func pooledSlope(
        _ sets: [(points: [(x: Double, y: Double, weight: Double)], fixedIntercept: Double?)], fallbackSlope: Double,
        slopeRange: ClosedRange<Double>, huber: Double = 1.345, scale: Double? = nil, unweighted: [[Bool]]? = nil
    ) -> Double? {
        var sum = 0.0
        var total = 0.0
        for (index, set) in sets.enumerated() where set.points.count >= 2 {
            guard
                let line = fit(
                    set.points, fixedIntercept: set.fixedIntercept, fallbackSlope: fallbackSlope, slopeRange: slopeRange, huber: huber,
                    scale: scale, unweighted: unweighted?[index])
            else { continue }
            let weight = set.points.reduce(0) { $0 + $1.weight }
            let mean = set.points.reduce(0) { $0 + $1.x * $1.weight } / weight
            let sxx = set.points.reduce(0) { $0 + $1.weight * ($1.x - mean) * ($1.x - mean) }
            sum += line.slope * sxx
            total += sxx
        }
        return total > 0.05 ? sum / total : nil
    }

    /// The median of `values` (reordered in place); 0 for none.
    public static func median(_ values: inout [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        values.sort()
        let middle = values.count / 2
        return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
    }
}
