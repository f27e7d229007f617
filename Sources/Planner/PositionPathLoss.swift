public import Foundation

/// The log-distance path-loss model: `rssi(d) = referencePower − 10 · exponent · log10(d / 1 m)`.
///
/// `referencePower` is the RSSI a receiver sees 1 m from a transmitter (iBeacon's "measured power").
/// Real rooms give exponents between about 1.3 and 3; free space is 2.
public struct PathLossModel: Sendable, Hashable, Codable {
    /// RSSI at 1 m, dBm, used when an observation carries no tx power of its own.
    public var referencePower: Double
    /// The path-loss exponent `n`.
    public var exponent: Double
    /// Distances below this are treated as this (the model is meaningless in the near field), metres.
    public var minimumDistance: Double

    public init(referencePower: Double = -59, exponent: Double = 2.0, minimumDistance: Double = 0.3) {
        self.referencePower = referencePower
        self.exponent = exponent
        self.minimumDistance = minimumDistance
    }

    /// The mean RSSI expected at `distance` metres from a transmitter whose 1 m power is `referencePower`.
    @inlinable
    public func expectedRSSI(atDistance distance: Double, referencePower: Double? = nil, exponent: Double? = nil) -> Double {
        let reference = referencePower ?? self.referencePower
        let n = exponent ?? self.exponent
        return reference - 10 * n * log10(Swift.max(distance, minimumDistance))
    }

    /// The distance, in metres, at which the model expects `rssi` (the inverse of ``expectedRSSI(atDistance:referencePower:exponent:)``).
    @inlinable
    public func distance(forRSSI rssi: Double, referencePower: Double? = nil, exponent: Double? = nil) -> Double {
        let reference = referencePower ?? self.referencePower
        let n = exponent ?? self.exponent
        return Swift.max(pow(10, (reference - rssi) / (10 * n)), minimumDistance)
    }
}
