/// What the estimator remembers about one client between updates: 56 bytes, so a coordinator with
/// many clients stays far below 1 KiB each. The position is a Gaussian (mean, isotropic variance)
/// on one level, stamped with the time of the evidence it summarises, plus the velocity the
/// filter tracks when ``PositionEstimatorConfiguration/velocityGain`` is on (zero otherwise).
public struct PositionState: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    /// Variance of each coordinate, m².
    public var variance: Double
    /// Seconds since the reference date (the injected clock's time of the last update).
    public var time: Double
    /// Index into ``PositionEstimator/levels``.
    public var level: Int32
    /// Velocity, m/s (0 unless the estimator tracks it).
    public var vx: Double
    public var vy: Double

    public init(x: Double, y: Double, variance: Double, time: Double, level: Int32, vx: Double = 0, vy: Double = 0) {
        self.x = x
        self.y = y
        self.variance = variance
        self.time = time
        self.level = level
        self.vx = vx
        self.vy = vy
    }
}
