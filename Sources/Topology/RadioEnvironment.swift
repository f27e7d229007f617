public import BeaconKit

/// How far a phone detects a region's beacon: the venue's radio assumptions (`venue.conf`'s
/// `power`, `sensitivity` and `path-loss-exponent`, and each region's `power` column).
///
/// iOS reports a beacon region *inside* as soon as it detects any advertisement of its beacon, so
/// the detection range (not the region's `radius`) is where a suspended phone is woken. It follows
/// from the beacon's measured power at 1 m through the log-distance model: at the factory default
/// (about −70 dBm at 1 m) with the defaults here, 10 m; at −59 dBm (0 dBm transmit power) about
/// 28 m; at −80 dBm 4 m (`../shared/IOS.md`: 1 m to 30–50 m, typically 5–15 m indoors).
public struct RadioEnvironment: Sendable, Hashable {
    /// The measured power at 1 m (dBm) of a region that declares none.
    public var measuredPower: Int8
    /// The weakest RSSI (dBm) at which a phone still detects a beacon.
    public var sensitivity: Double
    /// The path-loss exponent indoors (2 in free space, 2.5–4 through people and walls).
    public var pathLossExponent: Double
    /// Body shadowing: the standard deviation of one reading around the model, dB (IOS.md: ±4–8 dB).
    public var shadowing: Double
    /// How many standard deviations of shadowing above the model a reading may be when a beacon
    /// is first detected on an approach: the ``reach(measuredPower:)`` is where the mean reading
    /// is this far below the sensitivity.
    public static let reachDeviations = 1.5

    /// The defaults: −70 dBm at 1 m, −95 dBm sensitivity, exponent 2.5 (a 10 m detection range),
    /// 5 dB shadowing (a 20 m reach).
    public init(measuredPower: Int8 = -70, sensitivity: Double = -95, pathLossExponent: Double = 2.5, shadowing: Double = 5) {
        self.measuredPower = measuredPower
        self.sensitivity = sensitivity
        self.pathLossExponent = pathLossExponent
        self.shadowing = shadowing
    }

    /// The distance model the ranges come from.
    public var distanceModel: LogDistanceModel { LogDistanceModel(exponent: pathLossExponent) }

    /// Metres within which a phone detects a beacon whose measured power at 1 m is `power`
    /// (the environment's default when `nil`).
    public func detectionRange(measuredPower power: Int8?) -> Double {
        detectionRange(power: Double(power ?? measuredPower))
    }

    /// The detection range of a beacon whose measured power at 1 m is `power` dBm (a fitted one).
    public func detectionRange(power: Double) -> Double {
        distanceModel.distance(forRSSI: sensitivity, referencePower: power)
    }

    /// Metres within which a phone may already have detected the beacon, on a lucky reading
    /// (``reachDeviations`` standard deviations of shadowing): a region this close may be *inside*
    /// for iOS already, so it cannot be counted on to wake the phone by coming into range.
    public func reach(measuredPower power: Int8?) -> Double {
        reach(power: Double(power ?? measuredPower))
    }

    /// The reach of a beacon whose measured power at 1 m is `power` dBm (a fitted one).
    public func reach(power: Double) -> Double {
        distanceModel.distance(forRSSI: sensitivity - Self.reachDeviations * shadowing, referencePower: power)
    }
}
