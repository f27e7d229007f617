/// What the estimator remembers about one client between updates: 40 bytes, so a coordinator with
/// many clients stays far below 1 KiB each. The position is a Gaussian (mean, isotropic variance)
/// on one level, stamped with the time of the evidence it summarises.
public struct PositionState: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    /// Variance of each coordinate, m².
    public var variance: Double
    /// Seconds since the reference date (the injected clock's time of the last update).
    public var time: Double
    /// Index into ``PositionEstimator/levels``.
    public var level: Int32

    public init(x: Double, y: Double, variance: Double, time: Double, level: Int32) {
        self.x = x
        self.y = y
        self.variance = variance
        self.time = time
        self.level = level
    }
}
