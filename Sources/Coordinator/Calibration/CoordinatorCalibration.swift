public import Foundation
public import Planner

/// The coordinator's self-calibration state: the sliding memory of gateways' sightings of region
/// beacons (fed on ingest), the latest fit and when it was made. The engine refits it every
/// ``interval`` (``CoordinatorEngine/recalibrateIfDue(now:)``) and applies each usable gateway's
/// offset and exponent (and fitted beacon powers) to the venue's estimator.
public struct CoordinatorCalibration: Sendable {
    /// Whether sightings are remembered and fits applied.
    public var enabled: Bool
    /// Seconds between fits.
    public var interval: Double
    public var configuration: CalibrationConfiguration
    /// Sightings of region beacons by gateway and region index (the venue's).
    var window: CalibrationWindow
    /// What phones range of the region beacons, and the powers fitted from it (built for the
    /// venue on the engine's first report; ``CoordinatorEngine/recalibrate(now:)`` refits it and
    /// the planner plans with it).
    var ranged: RangedRadio?
    /// The latest fit, and when (milliseconds since 1970).
    public internal(set) var latest: RadioCalibration?
    public internal(set) var fittedAt: Int64?
    var lastAttempt: Int64?

    public init(enabled: Bool = true, interval: Double = 60, configuration: CalibrationConfiguration = .init()) {
        self.enabled = enabled
        self.interval = interval
        self.configuration = configuration
        self.window = CalibrationWindow(halfLife: configuration.halfLife)
    }

    /// `GET /api/calibration`'s answer.
    public var snapshot: CalibrationSnapshot {
        CalibrationSnapshot(
            enabled: enabled, fitted: fittedAt.map { Date(timeIntervalSince1970: Double($0) / 1000) }, pairs: window.count,
            gateways: latest?.gateways ?? [], beacons: latest?.beacons ?? [], ranged: ranged?.fits ?? [])
    }
}

/// The calibration as `GET /api/calibration` serves it.
public struct CalibrationSnapshot: Sendable, Codable, Hashable {
    public var enabled: Bool
    /// When the latest fit was made (nil: none yet).
    public var fitted: Date?
    /// (gateway, beacon) pairs remembered.
    public var pairs: Int
    public var gateways: [RadioCalibration.GatewayFit]
    public var beacons: [RadioCalibration.BeaconFit]
    /// Per region: its beacon's measured power as phones range it (``Planner/RangedRadio``).
    public var ranged: [RangedRadio.Fit]
}
