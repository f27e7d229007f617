/// How a venue tunes the coordinator's position filter beyond its radio (`venue.conf`'s
/// `walking-speed`, `velocity-gain` and `anchors-per-estimate`). A value the venue does not set is nil: the estimator's
/// default (`PositionEstimatorConfiguration` in `Planner`) stays, so venues that set none
/// estimate exactly as before.
public struct PositionTuning: Sendable, Hashable {
    /// How fast a client may move, m/s (`walking-speed`, 0.1…10): the filter's prior spreads by
    /// this much per second.
    public var walkingSpeed: Double?
    /// The share of each correction the filter's tracked velocity takes (`velocity-gain`, 0…1;
    /// 0: no velocity, the estimator's default). It cuts the lag of the estimate behind a walker.
    public var velocityGain: Double?
    /// The most anchors (gateways that heard a tag, beacons a phone ranged) one estimate of a
    /// client uses: of the readings of one window the strongest (`anchors-per-estimate`, 1…64;
    /// the coordinator's default is 8). A room where every gateway hears every tag (tetam: 12)
    /// loses evidence below its gateway count.
    public var anchorsPerEstimate: Int?

    public static let walkingSpeedRange = 0.1...10.0
    public static let velocityGainRange = 0.0...1.0
    public static let anchorsPerEstimateRange = 1...64
}
