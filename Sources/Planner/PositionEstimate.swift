public import Topology

/// Where a client probably is, after one update.
public struct PositionEstimate: Sendable, Hashable {
    /// Posterior mean, metres, on `level`.
    public var x: Double
    public var y: Double
    public var level: String
    /// Radius in metres within which the client probably is (the posterior's RMS radius).
    public var confidence: Double
    /// The estimate moved onto the walkable graph, when the estimator has a snapper.
    public var snapped: GraphLocation?
    /// What to pass to the next update.
    public var state: PositionState
    /// Distinct anchors whose readings were used.
    public var anchorsUsed: Int
    /// Readings refused as implausible (unknown anchor, RSSI out of range, count < 1).
    public var rejected: Int
    /// `true` when nothing new arrived and this is the previous estimate, grown more uncertain.
    public var isPrediction: Bool
}

/// Moves a point onto the walkable graph (the topology implements it).
public protocol PositionSnapping: Sendable {
    /// The nearest walkable point to (x, y) on `level` (its ``GraphLocation/offset``: how far the
    /// point moved, metres), or `nil` when the level has none.
    func snap(x: Double, y: Double, level: String) -> GraphLocation?
}
