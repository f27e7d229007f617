/// What the estimator remembers about one client between updates: 56 bytes (the offset fills the
/// level's padding), so a coordinator with many clients stays far below 1 KiB each. The position
/// is a Gaussian (mean, isotropic variance) on one level, stamped with the time of the evidence it
/// summarises, plus the velocity the filter tracks when
/// ``PositionEstimatorConfiguration/velocityGain`` is on (zero otherwise) and the client's own
/// radio offset when ``PositionEstimatorConfiguration/offsetGain`` is.
public struct PositionState: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    /// Variance of each coordinate, m².
    public var variance: Double
    /// Seconds since the reference date (the injected clock's time of the last update).
    public var time: Double
    /// Index into ``PositionEstimator/levels``.
    public var level: Int32
    /// dB this client's readings run above the model (a hot receiver, a loud tag), learned from
    /// its own readings, at most ±``maximumOffset``; 0 unless the estimator learns it.
    public var offset: Float
    /// Velocity, m/s (0 unless the estimator tracks it).
    public var vx: Double
    public var vy: Double

    /// The largest offset learned, dB. Receivers differ by a few dB; what a phone's residuals show
    /// beyond that is mostly its path-loss exponent and the weak readings it missed, and an offset
    /// learned from those pulls a suspended phone's estimate toward every beacon (docs/benchmarks.md
    /// gives the measurement).
    public static let maximumOffset: Float = 5

    public init(
        x: Double, y: Double, variance: Double, time: Double, level: Int32, vx: Double = 0, vy: Double = 0, offset: Float = 0
    ) {
        self.x = x
        self.y = y
        self.variance = variance
        self.time = time
        self.level = level
        self.vx = vx
        self.vy = vy
        self.offset = offset
    }
}
