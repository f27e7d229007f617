/// A small, robust location estimator: a weighted centroid of the anchors (weight 1/d²) on the
/// level most of the evidence comes from, blended with the previous estimate.
///
/// The coordinator uses the estimation engineer's estimator when it is plugged in; this one keeps
/// the coordinator working (and testable) on its own.
public struct WeightedCentroidEstimator: LocationEstimating, Sendable {
    /// Share of the new estimate in the blend (1 = no smoothing).
    public var smoothing: Double

    public init(smoothing: Double = 0.6) {
        self.smoothing = smoothing
    }

    public func estimate(_ evidence: LocationEvidence, previous: LocationEstimate?, now: Int64) -> LocationEstimate? {
        let observations = evidence.recent
        guard !observations.isEmpty else { return previous }
        // The level with the strongest total weight wins: an anchor heard through a floor is outvoted.
        var weightByLevel: [Int32: Double] = [:]
        for o in observations { weightByLevel[o.point.level, default: 0] += weight(o) }
        guard let level = weightByLevel.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) })?.key else { return previous }
        var sx = 0.0, sy = 0.0, sw = 0.0, nearest = Double.infinity
        for o in observations where o.point.level == level {
            let w = weight(o)
            sx += o.point.x * w
            sy += o.point.y * w
            sw += w
            nearest = min(nearest, o.distance)
        }
        guard sw > 0, sw.isFinite else { return previous }
        var point = LevelPoint(x: sx / sw, y: sy / sw, level: level)
        var confidence = max(1, min(nearest, 50))
        if let previous, previous.point.level == level {
            point.x = previous.point.x + (point.x - previous.point.x) * smoothing
            point.y = previous.point.y + (point.y - previous.point.y) * smoothing
            confidence = (previous.confidence + (confidence - previous.confidence) * smoothing)
        }
        let time = observations.reduce(previous?.time ?? Int64.min) { max($0, $1.time) }
        return LocationEstimate(point: point, confidence: confidence, time: time)
    }

    @inline(__always) private func weight(_ o: AnchorObservation) -> Double {
        let d = max(0.5, o.distance.isFinite ? o.distance : 50)
        return 1 / (d * d)
    }
}
