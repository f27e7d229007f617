public import BeaconKit

/// The estimator's tunables. The defaults suit a phone or tag carried by a walking person heard by
/// ceiling gateways; ``PositionEstimatorConfiguration/validate()`` checks the ranges.
public struct PositionEstimatorConfiguration: Sendable, Hashable, Codable {
    /// The radio model (reference power used when an observation has no tx power).
    public var pathLoss: LogDistanceModel
    /// Log-normal shadowing of one reading, dB (the spread of RSSI around the model).
    public var shadowingSigma: Double
    /// Residuals beyond about this many `shadowingSigma` count less and less (a Cauchy loss), so a
    /// single wild reading cannot drag the estimate.
    public var outlierScale: Double
    /// After a first pass, the reading that fits worst is dropped and the update redone when its
    /// residual exceeds this many `shadowingSigma · outlierScale / √count` (and at least four anchors
    /// were heard); 0 turns this off.
    public var outlierRejection: Double
    /// How fast a client may move, m/s: the prior's spread grows by this much per second.
    public var walkingSpeed: Double
    /// 0: no motion model (the prior is centred on the previous estimate). Otherwise the filter
    /// also tracks a velocity (an alpha-beta filter): the prior is centred where the client would be
    /// at its velocity (extrapolated over at most ``velocityHorizon`` seconds), and after each update
    /// the velocity takes this share of the correction the evidence made to that prediction (divided
    /// by the time since the previous update), capped at `walkingSpeed`. It cuts the lag of the
    /// filtered estimate behind a walking client.
    public var velocityGain: Double
    /// The longest extrapolation of the velocity, seconds.
    public var velocityHorizon: Double
    /// Height of the client above its floor, metres (a phone in a hand or pocket).
    public var clientHeight: Double
    /// Grid spacing of the posterior, metres (coarsened when the searched area is large). 0.5 m:
    /// on the real tetam tracks 0.25 m gives the same median and p90 errors for five times the
    /// work, and planning re-plans only after 1 m of movement.
    public var gridStep: Double
    /// Upper bound on grid points per level and update: bounds the cost of one update (about
    /// grid points × anchors log10 evaluations; 2,500 × 12 anchors is well under a millisecond in a
    /// release build). The grid coarsens beyond it.
    public var maximumGridPoints: Int
    /// How far beyond the heard anchors the client may be, metres.
    public var searchMargin: Double
    /// Extra loss through each floor between an anchor and the client, dB.
    public var floorAttenuation: Double
    /// Height of one level, metres (anchors on other levels are this much higher or lower per level).
    public var levelHeight: Double
    /// Log-odds a level change must win by (stops a client flickering between levels).
    public var levelSwitchPenalty: Double
    /// Readings outside this range are refused as implausible, dBm.
    public var minimumRSSI: Double
    public var maximumRSSI: Double
    /// After this many seconds without evidence the previous estimate is forgotten.
    public var maximumAge: Double
    /// A region enter/exit constraint's softness, metres (iOS fires enter a little outside the radius).
    public var constraintSoftness: Double
    /// How fast each client's own offset is learned (``PositionState/offset``): after each update
    /// with three or more usable readings, the offset moves this share of their mean residual at
    /// the new estimate. A phone's receiver reads a few dB hot or cold for every beacon, and a tag
    /// transmits above or below the venue's power for every gateway; neither is in the venue file.
    /// 0 (the default) turns it off. The coordinator learns it only for room presence
    /// (``PositionEstimator/learningOffsets(gain:)``): an offset moves the estimate toward or away
    /// from every anchor, which the room shown gains by and a suspended phone's plan can lose by.
    public var offsetGain: Double
    /// Only readings the model expects at or above this, dBm, inform the offset: weaker ones are
    /// heard only when they happen to read high (those below the receiver's sensitivity are never
    /// reported), so they would teach every client to read hot. ``init(venue:)`` sets the venue's
    /// sensitivity plus twice its shadowing.
    public var offsetFloor: Double

    public init(
        pathLoss: LogDistanceModel = LogDistanceModel(referencePower: -59, exponent: 2.0),
        shadowingSigma: Double = 6,
        outlierScale: Double = 2,
        outlierRejection: Double = 2,
        walkingSpeed: Double = 1.5,
        velocityGain: Double = 0,
        velocityHorizon: Double = 3,
        clientHeight: Double = 1.2,
        gridStep: Double = 0.5,
        maximumGridPoints: Int = 2500,
        searchMargin: Double = 5,
        floorAttenuation: Double = 15,
        levelHeight: Double = 4,
        levelSwitchPenalty: Double = 3,
        minimumRSSI: Double = -110,
        maximumRSSI: Double = 0,
        maximumAge: Double = 30,
        constraintSoftness: Double = 1,
        offsetGain: Double = 0,
        offsetFloor: Double = -85
    ) {
        self.pathLoss = pathLoss
        self.shadowingSigma = shadowingSigma
        self.outlierScale = outlierScale
        self.outlierRejection = outlierRejection
        self.walkingSpeed = walkingSpeed
        self.velocityGain = velocityGain
        self.velocityHorizon = velocityHorizon
        self.clientHeight = clientHeight
        self.gridStep = gridStep
        self.maximumGridPoints = maximumGridPoints
        self.searchMargin = searchMargin
        self.floorAttenuation = floorAttenuation
        self.levelHeight = levelHeight
        self.levelSwitchPenalty = levelSwitchPenalty
        self.minimumRSSI = minimumRSSI
        self.maximumRSSI = maximumRSSI
        self.maximumAge = maximumAge
        self.constraintSoftness = constraintSoftness
        self.offsetGain = offsetGain
        self.offsetFloor = offsetFloor
    }

    /// Throws ``PositionError/invalidConfiguration(field:value:reason:)`` naming the first bad field.
    public func validate() throws(PositionError) {
        func positive(_ value: Double, _ field: String) throws(PositionError) {
            guard value > 0, value.isFinite else {
                throw .invalidConfiguration(field: field, value: value, reason: "must be a positive number")
            }
        }
        try positive(pathLoss.exponent, "pathLoss.exponent")
        try positive(pathLoss.minimumDistance, "pathLoss.minimumDistance")
        try positive(shadowingSigma, "shadowingSigma")
        try positive(outlierScale, "outlierScale")
        try positive(walkingSpeed, "walkingSpeed")
        try positive(gridStep, "gridStep")
        try positive(maximumAge, "maximumAge")
        try positive(constraintSoftness, "constraintSoftness")
        try positive(levelHeight, "levelHeight")
        guard (0...1).contains(velocityGain) else {
            throw .invalidConfiguration(field: "velocityGain", value: velocityGain, reason: "must lie in 0...1")
        }
        guard (0...1).contains(offsetGain) else {
            throw .invalidConfiguration(field: "offsetGain", value: offsetGain, reason: "must lie in 0...1")
        }
        guard offsetFloor.isFinite else {
            throw .invalidConfiguration(field: "offsetFloor", value: offsetFloor, reason: "must be a finite dBm")
        }
        guard velocityHorizon >= 0, velocityHorizon.isFinite else {
            throw .invalidConfiguration(field: "velocityHorizon", value: velocityHorizon, reason: "must not be negative")
        }
        guard outlierRejection >= 0, outlierRejection.isFinite else {
            throw .invalidConfiguration(field: "outlierRejection", value: outlierRejection, reason: "must not be negative")
        }
        guard searchMargin >= 0 else {
            throw .invalidConfiguration(field: "searchMargin", value: searchMargin, reason: "must not be negative")
        }
        guard floorAttenuation >= 0 else {
            throw .invalidConfiguration(field: "floorAttenuation", value: floorAttenuation, reason: "must not be negative")
        }
        guard maximumGridPoints >= 16 else {
            throw .invalidConfiguration(field: "maximumGridPoints", value: Double(maximumGridPoints), reason: "must be at least 16")
        }
        guard minimumRSSI < maximumRSSI else {
            throw .invalidConfiguration(field: "minimumRSSI", value: minimumRSSI, reason: "must be below maximumRSSI (\(maximumRSSI))")
        }
    }
}
