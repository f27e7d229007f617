/// One piece of evidence about where a client is: an anchor at a known point and what was
/// received from (or by) it.
public struct AnchorObservation: Sendable, Equatable {
    /// Which anchor: a gateway that heard the client, or a region's beacon the phone ranged.
    public enum Anchor: Sendable, Hashable {
        case gateway(Int32)
        case region(Int32)
    }

    public var anchor: Anchor
    /// Where the anchor is.
    public var point: LevelPoint
    /// Estimated distance in metres (from the sighting or the phone's accuracy).
    public var distance: Double
    /// Mean received signal strength over the window, dBm.
    public var rssi: Double
    /// Advertisements averaged into `rssi`.
    public var count: Int
    /// Measured power at 1 m, dBm, when the advertiser sends one.
    public var txPower: Double?
    /// Milliseconds since 1970 when the observation was made (a window's end, a report's time).
    public var time: Int64

    public init(anchor: Anchor, point: LevelPoint, distance: Double, rssi: Double, count: Int = 1, txPower: Double? = nil, time: Int64) {
        self.anchor = anchor
        self.point = point
        self.distance = distance
        self.rssi = rssi
        self.count = count
        self.txPower = txPower
        self.time = time
    }
}

/// A client's estimated location: a point, a confidence radius in metres, and the filter state
/// the next estimate starts from.
public struct LocationEstimate: Sendable, Equatable {
    public var point: LevelPoint
    /// Radius in metres within which the client probably is.
    public var confidence: Double
    /// Variance of each coordinate, m² (the filter's state).
    public var variance: Double
    /// Milliseconds since 1970 of the evidence the estimate rests on.
    public var time: Int64

    public init(point: LevelPoint, confidence: Double, variance: Double? = nil, time: Int64) {
        self.point = point
        self.confidence = confidence
        self.variance = variance ?? confidence * confidence
        self.time = time
    }
}

/// What a location estimator is given for one client at one flush.
public struct LocationEvidence: Sendable {
    /// Observations that arrived since the last estimate (each is given once).
    public var fresh: [AnchorObservation]
    /// Every observation still within the horizon (fresh ones included).
    public var recent: [AnchorObservation]
    /// Regions the client is inside (by the phone's own events) and regions it just left.
    public var inside: [Int32]
    public var outside: [Int32]

    public init(fresh: [AnchorObservation], recent: [AnchorObservation], inside: [Int32] = [], outside: [Int32] = []) {
        self.fresh = fresh
        self.recent = recent
        self.inside = inside
        self.outside = outside
    }
}

/// Turns evidence into a location. The previous estimate is passed back in, so per-client state
/// stays a few bytes in the coordinator's record; implementations must be deterministic (time is
/// an argument) because the coordinator is.
public protocol LocationEstimating {
    /// Estimates the location; `nil` when there is neither evidence nor a previous estimate.
    func estimate(_ evidence: LocationEvidence, previous: LocationEstimate?, now: Int64) -> LocationEstimate?
}
