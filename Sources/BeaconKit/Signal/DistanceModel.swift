import Foundation

/// Estimates the distance to a beacon from the RSSI heard and the beacon's measured power at 1 m.
public protocol DistanceModel: Sendable {
    /// The distance in metres, or `nil` when it cannot be estimated (RSSI 0 or not finite).
    func distance(rssi: Double, measuredPower: Int8) -> Double?
}

/// The log-distance path-loss model: `d = 10 ^ ((measuredPower − rssi) / (10 × n))`, with `n` the
/// environment exponent (2 in free space, 2.5–4 indoors).
public struct LogDistanceModel: DistanceModel, Hashable {
    /// The path-loss exponent `n`.
    public var exponent: Double

    public init(exponent: Double = 2.0) {
        self.exponent = exponent
    }

    public func distance(rssi: Double, measuredPower: Int8) -> Double? {
        guard rssi.isFinite, rssi < 0, exponent > 0 else { return nil }
        return pow(10, (Double(measuredPower) - rssi) / (10 * exponent))
    }
}

/// The curve-fitted model of the AltBeacon library: with `r = rssi / measuredPower`,
/// `d = r^10` when `r < 1`, else `d = A × r^B + C`. The default coefficients (A 0.89976,
/// B 7.7095, C 0.111) are the ones Radius Networks fitted to an iPhone 4S.
public struct CurveFittedDistanceModel: DistanceModel, Hashable {
    public var a: Double
    public var b: Double
    public var c: Double

    public init(a: Double = 0.89976, b: Double = 7.7095, c: Double = 0.111) {
        self.a = a
        self.b = b
        self.c = c
    }

    public func distance(rssi: Double, measuredPower: Int8) -> Double? {
        guard rssi.isFinite, rssi < 0, measuredPower < 0 else { return nil }
        let ratio = rssi / Double(measuredPower)
        return ratio < 1 ? pow(ratio, 10) : a * pow(ratio, b) + c
    }
}

/// How near a beacon is, in the classes iOS reports (`CLProximity`).
///
/// Thresholds (documented, and the same as iOS's commonly quoted ones): immediate below 0.5 m,
/// near below 3 m, far beyond; unknown when there is no distance estimate.
public enum Proximity: String, Sendable, Hashable, CaseIterable, Codable {
    case immediate
    case near
    case far
    case unknown

    /// The upper bound of ``immediate``, in metres.
    public static let immediateLimit = 0.5
    /// The upper bound of ``near``, in metres.
    public static let nearLimit = 3.0

    /// The class of `distance` (metres); `nil`, negative or not finite is ``unknown``.
    public init(distance: Double?) {
        guard let distance, distance.isFinite, distance >= 0 else {
            self = .unknown
            return
        }
        self = distance < Self.immediateLimit ? .immediate : distance < Self.nearLimit ? .near : .far
    }
}
