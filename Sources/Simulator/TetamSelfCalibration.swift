import Foundation
public import Planner

/// Per-sensor lines fitted on the tetam tracks *without* the camera truth: jointly with the
/// positions, from the sightings alone.
///
/// Starting from the model's line for every sensor (−59 dBm at 1 m, exponent 2, the estimator's
/// defaults, nothing fitted on truth), each round
/// 1. runs the production ``PositionEstimator`` with the current lines over the tracks' windows
///    (the same filter the coordinator runs), and
/// 2. refits each sensor's line (``RobustLine``, Huber) of its window means against
///    `log10` of the 3-D distance from the *estimated* position (at the configured client height),
///    with the exponent bounded (``CalibrationConfiguration/exponentRange``) and pulled towards
///    the pooled one of all sensors.
///
/// The camera truth is read only afterwards, to measure the result. The one choice made here by
/// looking at it: the number of rounds (with the filter without velocity, 3: 1.50 / 3.16 m median /
/// p90 on all tracks; 6: 1.49 / 3.28; 12: 1.53 / 3.36: later rounds drift, estimates and lines
/// reinforcing each other; with the room's velocity-tracking filter, 1: 1.46 / 2.77; 2: 1.44 /
/// 2.78; 3: 1.44 / 2.82; 4: 1.43 / 2.89; 6: 1.45 / 2.91, so 3 was kept).
public struct TetamSelfCalibration: Sendable, Hashable, Codable {
    /// Per sensor (the dataset's order): offset from the model's reference power, dB, and exponent.
    public var offsets: [Double]
    public var exponents: [Double]
    /// Rounds run, and the tracks whose sightings were used.
    public var rounds: Int
    public var tracks: [String]

    /// Fits on the sightings of `tracks` (no truth) in `rounds` rounds.
    public static func fit(
        _ replay: TetamReplay, tracks: [String], rounds: Int = 3, configuration calibration: CalibrationConfiguration = .init()
    ) throws -> TetamSelfCalibration {
        let dataset = replay.dataset
        let count = dataset.sensors.count
        var offsets = [Double](repeating: 0, count: count)
        var exponents = [Double](repeating: replay.configuration.pathLoss.exponent, count: count)
        let windows = try tracks.map { name -> [TetamReplay.Window] in
            guard let track = dataset.track(named: name) else {
                throw SimulationError.invalidParameter(name: "self-calibration track", reason: "no track named '\(name)'")
            }
            return replay.windows(track).windows
        }
        let height = replay.configuration.clientHeight
        let slopeRange = (-10 * calibration.exponentRange.upperBound)...(-10 * calibration.exponentRange.lowerBound)
        for _ in 0..<max(rounds, 1) {
            let estimator = try replay.selfCalibratedEstimator(offsets: offsets, exponents: exponents)
            var points = [[(x: Double, y: Double, weight: Double)]](repeating: [], count: count)
            for track in windows {
                for (window, estimate) in zip(track, replay.estimate(track, with: estimator)) {
                    guard let estimate else { continue }
                    for (i, sensor) in window.sensors.enumerated() {
                        let s = dataset.sensors[sensor]
                        let dx = estimate.x - s.x
                        let dy = estimate.y - s.y
                        let dz = height - s.z
                        let d = max((dx * dx + dy * dy + dz * dz).squareRoot(), calibration.minimumDistance)
                        points[sensor].append(
                            (log10(d), window.rssi[i] - replay.configuration.pathLoss.referencePower, Double(window.counts[i]).squareRoot())
                        )
                    }
                }
            }
            let pooled =
                RobustLine.pooledSlope(points.map { ($0, nil) }, fallbackSlope: -10 * calibration.defaultExponent, slopeRange: slopeRange)
                ?? -10 * calibration.defaultExponent
            for sensor in 0..<count {
                guard points[sensor].count >= calibration.minimumBeacons,
                    let line = RobustLine.fit(
                        points[sensor],
                        slopePrior: (min(max(pooled, slopeRange.lowerBound), slopeRange.upperBound), calibration.exponentPrior),
                        fallbackSlope: pooled, slopeRange: slopeRange)
                else { continue }
                offsets[sensor] = min(max(line.intercept, -calibration.maximumOffset), calibration.maximumOffset)
                exponents[sensor] = -line.slope / 10
            }
        }
        return TetamSelfCalibration(offsets: offsets, exponents: exponents, rounds: rounds, tracks: tracks)
    }
}

extension TetamReplay {
    /// The room's estimator (``PositionEstimator``, the production one) with per-sensor offsets
    /// and exponents, at the configuration's client height (not the truth's).
    func selfCalibratedEstimator(offsets: [Double], exponents: [Double]) throws(PositionError) -> PositionEstimator {
        let anchors = dataset.sensors.enumerated().map { index, sensor in
            PositionAnchor(
                id: sensor.name, x: sensor.x, y: sensor.y, height: sensor.z, level: level, rssiOffset: offsets[index],
                exponent: exponents[index])
        }
        let area = PositionArea(level: level, minX: dataset.minX, minY: dataset.minY, maxX: dataset.maxX, maxY: dataset.maxY)
        return try PositionEstimator(anchors: anchors, areas: [area], configuration: configuration)
    }

    /// The estimator with a self-calibration applied.
    public func estimator(selfCalibration fit: TetamSelfCalibration) throws(PositionError) -> PositionEstimator {
        try selfCalibratedEstimator(offsets: fit.offsets, exponents: fit.exponents)
    }
}
