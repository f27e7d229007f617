import Foundation
public import Planner

/// Per-sensor radio calibration fitted on tracks with known positions, as an installer would do
/// with a calibration walk: for each sensor, a least-squares line of RSSI against
/// `log10(true 3-D distance)` gives its 1 m power and path-loss exponent.
public struct TetamCalibration: Sendable, Hashable, Codable {
    /// Per sensor (the dataset's order): RSSI at 1 m, dBm, and path-loss exponent.
    public var referencePower: [Double]
    public var exponent: [Double]
    /// One line for all sensors (what an uncalibrated deployment would use).
    public var globalReferencePower: Double
    public var globalExponent: Double
    /// The mean height of the beacon on the fitting tracks, metres.
    public var clientHeight: Double
    /// RMS residual of the per-sensor fits, dB.
    public var residual: Double
    /// The tracks it was fitted on.
    public var tracks: [String]

    /// Fits on `tracks` (readings outside `minimumRSSI…maximumRSSI` are ignored).
    public static func fit(_ dataset: TetamDataset, tracks: [String], minimumRSSI: Double = -110, maximumRSSI: Double = 0)
        throws(SimulationError) -> TetamCalibration
    {
        let count = dataset.sensors.count
        var sums = [LineSums](repeating: LineSums(), count: count)
        var all = LineSums()
        var heights = 0.0
        var readings = 0
        for name in tracks {
            guard let track = dataset.track(named: name) else {
                throw .invalidParameter(name: "calibration track", reason: "no track named '\(name)'")
            }
            for reading in track.readings where Double(reading.rssi) >= minimumRSSI && Double(reading.rssi) <= maximumRSSI {
                let sensor = dataset.sensors[reading.sensor]
                let dx = reading.x - sensor.x
                let dy = reading.y - sensor.y
                let dz = reading.z - sensor.z
                let x = log10(max((dx * dx + dy * dy + dz * dz).squareRoot(), 0.3))
                sums[reading.sensor].add(x: x, y: Double(reading.rssi))
                all.add(x: x, y: Double(reading.rssi))
                heights += reading.z
                readings += 1
            }
        }
        guard readings > 0 else {
            throw .invalidParameter(name: "calibration tracks", reason: "no usable readings in \(tracks.joined(separator: ", "))")
        }
        let global = all.line()
        var references: [Double] = []
        var exponents: [Double] = []
        var squared = 0.0
        var n = 0.0
        for sensor in 0..<count {
            // A sensor with too few readings keeps the global line.
            let line = sums[sensor].n >= 20 ? sums[sensor].line() : global
            references.append(line.intercept)
            exponents.append(max(-line.slope / 10, 0.5))
            squared += sums[sensor].squaredResidual(line)
            n += sums[sensor].n
        }
        return TetamCalibration(
            referencePower: references, exponent: exponents,
            globalReferencePower: global.intercept, globalExponent: max(-global.slope / 10, 0.5),
            clientHeight: heights / Double(readings), residual: (squared / max(n, 1)).squareRoot(), tracks: tracks)
    }

    /// The sensors as estimator anchors, with (`perSensor`) or without the per-sensor calibration.
    public func anchors(for dataset: TetamDataset, level: String, perSensor: Bool, modelReference: Double) -> [PositionAnchor] {
        dataset.sensors.enumerated().map { index, sensor in
            PositionAnchor(
                id: sensor.name, x: sensor.x, y: sensor.y, height: sensor.z, level: level,
                rssiOffset: (perSensor ? referencePower[index] : globalReferencePower) - modelReference,
                exponent: perSensor ? exponent[index] : globalExponent)
        }
    }
}

/// Running sums for a least-squares line.
struct LineSums: Hashable {
    var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0, syy = 0.0

    mutating func add(x: Double, y: Double) {
        n += 1
        sx += x
        sy += y
        sxx += x * x
        sxy += x * y
        syy += y * y
    }

    func line() -> (intercept: Double, slope: Double) {
        let denominator = n * sxx - sx * sx
        guard n >= 2, abs(denominator) > 1e-12 else { return (n > 0 ? sy / n : -59, -20) }
        let slope = (n * sxy - sx * sy) / denominator
        return ((sy - slope * sx) / n, slope)
    }

    /// Σ (y − a − b·x)², from the sums.
    func squaredResidual(_ line: (intercept: Double, slope: Double)) -> Double {
        let a = line.intercept
        let b = line.slope
        return max(syy - 2 * a * sy - 2 * b * sxy + n * a * a + 2 * a * b * sx + b * b * sxx, 0)
    }
}
