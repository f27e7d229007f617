public import BeaconKit
import Planner

/// The simulated radio: log-distance path loss with log-normal shadowing, extra loss per floor,
/// and a receiver sensitivity below which nothing is heard.
///
/// Used by the offline simulation and the live one (`LiveSimulation`) for both directions:
/// a phone ranging region beacons, and gateways hearing a phone or tag.
public struct RadioModel: Sendable, Hashable {
    /// Mean RSSI against distance (reference power = the transmitter's measured power at 1 m).
    public var pathLoss: LogDistanceModel
    /// Standard deviation of the log-normal shadowing of one reading, dB.
    public var shadowingSigma: Double
    /// Extra loss per floor between transmitter and receiver, dB.
    public var floorAttenuation: Double
    /// Readings below this are not heard, dBm.
    public var sensitivity: Double

    public init(
        pathLoss: LogDistanceModel = LogDistanceModel(referencePower: -59, exponent: 2.2), shadowingSigma: Double = 5,
        floorAttenuation: Double = 15, sensitivity: Double = -95
    ) {
        self.pathLoss = pathLoss
        self.shadowingSigma = shadowingSigma
        self.floorAttenuation = floorAttenuation
        self.sensitivity = sensitivity
    }

    /// The mean RSSI at `distance` metres (3-D) through `floors` floors.
    public func meanRSSI(distance: Double, floors: Int = 0, txPower: Double? = nil) -> Double {
        pathLoss.expectedRSSI(atDistance: distance, referencePower: txPower) - Double(abs(floors)) * floorAttenuation
    }

    /// One reading with shadowing `standardNormal` (a draw from N(0, 1)), or `nil` when it is below
    /// the sensitivity. RSSI is reported in whole dBm, as radios do.
    public func reading(distance: Double, floors: Int = 0, txPower: Double? = nil, standardNormal: Double) -> Int? {
        let value = (meanRSSI(distance: distance, floors: floors, txPower: txPower) + shadowingSigma * standardNormal).rounded()
        guard value >= sensitivity else { return nil }
        return Int(max(value, -127))
    }
}
