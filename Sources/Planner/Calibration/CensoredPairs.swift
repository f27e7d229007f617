import Foundation

/// The censoring correction of the self-calibration: a gateway hears a beacon in a window only
/// when the window's RSSI is above its receiver's sensitivity, so a pair heard in a share *p* of
/// its gateway's windows (``CalibrationPair/heardShare``) averages only its loudest windows and
/// reads hot. With the windows' RSSI normal around the pair's true mean μ with the gateway's
/// window-to-window deviation σ (measured on its pairs heard in every window), the windows heard
/// are those above the sensitivity *t*: p = 1 − Φ(α) with α = (t − μ)/σ, and their mean is
/// μ + σ·φ(α)/p. So μ = mean − σ·φ(α)/p and t = μ + σ·α, from p alone.
///
/// Pairs heard in less than ``CalibrationConfiguration/censoredShare`` of the windows, or never,
/// carry too little to correct: they are kept as upper bounds (μ below t + σ·Φ⁻¹(share)), and the
/// fit counts each at the value its gateway's line expects below that bound. Beacons far away are
/// then part of the fit whether or not they happened to be heard, which keeps the far pairs
/// heard by luck from flattening the line and gives the exponent the range of distances at which
/// beacons fade out.
struct CensoredPairs {
    /// Per gateway: the window-to-window deviation, dB, and the sensitivity in its own RSSI, dBm
    /// (nil when none of its pairs is heard only in part of the windows).
    var deviation: [Double]
    var sensitivity: [Double?]
    var minimumShare: Double

    /// Share of the windows above which a pair counts as heard in every window.
    static let steadyShare = 0.95
    /// A pair not heard whose bound is more than this many deviations above its line's value
    /// (a chance below 2 % of being heard) is left out of a round.
    static let informative = 2.0

    /// Nil when the pairs do not say how often they were heard (then means are taken as they are).
    init?(pairs: [CalibrationPair], gateways: Int, configuration: CalibrationConfiguration) {
        guard configuration.censoredShare > 0, pairs.contains(where: { $0.heardShare != nil }) else { return nil }
        minimumShare = min(configuration.censoredShare, Self.steadyShare)
        var steady = [[Double]](repeating: [], count: gateways)
        for pair in pairs {
            guard let share = pair.heardShare, share >= Self.steadyShare, (pair.windows ?? 0) >= 3, let deviation = pair.deviation else {
                continue
            }
            steady[pair.gateway].append(deviation)
        }
        var all = steady.flatMap { $0 }
        let venue = all.isEmpty ? 2 : RobustLine.median(&all)
        deviation = steady.map { values in
            var values = values
            return max(values.count >= 3 ? RobustLine.median(&values) : venue, 0.5)
        }
        var thresholds = [[Double]](repeating: [], count: gateways)
        for pair in pairs {
            guard let share = pair.heardShare, share >= minimumShare, share < Self.steadyShare else { continue }
            let sigma = deviation[pair.gateway]
            let alpha = StandardNormal.quantile(1 - share)
            thresholds[pair.gateway].append(pair.rssi - sigma * StandardNormal.density(alpha) / share + sigma * alpha)
        }
        sensitivity = thresholds.map { values in
            var values = values
            return values.isEmpty ? nil : RobustLine.median(&values)
        }
    }

    /// A heard pair's mean corrected for the windows it was not heard in; nil when it was heard
    /// too seldom to correct (it is an upper bound then).
    func mean(_ pair: CalibrationPair) -> Double? {
        guard let share = pair.heardShare else { return pair.rssi }
        guard share >= minimumShare else { return nil }
        let alpha = StandardNormal.quantile(1 - share)
        return pair.rssi - deviation[pair.gateway] * StandardNormal.density(alpha) / share
    }

    /// The RSSI, dBm, below which the mean of a beacon `gateway` (next to) never hears must lie;
    /// nil when its sensitivity is not known.
    func bound(gateway: Int) -> Double? {
        sensitivity[gateway].map { $0 + deviation[gateway] * StandardNormal.quantile(minimumShare) }
    }

    /// The expected value of a normal variable with `mean` and `deviation` given it lies below
    /// `bound`: mean − deviation · φ(z)/Φ(z), z = (bound − mean)/deviation.
    static func expectedBelow(_ bound: Double, mean: Double, deviation: Double) -> Double {
        let z = (bound - mean) / deviation
        let below = StandardNormal.distribution(z)
        guard below > 1e-12 else { return bound }
        return min(mean - deviation * StandardNormal.density(z) / below, bound)
    }

    /// The expected squared distance from `mean` of such a variable: deviation² · (1 − z·φ(z)/Φ(z)).
    static func squareBelow(_ bound: Double, mean: Double, deviation: Double) -> Double {
        let z = (bound - mean) / deviation
        let below = StandardNormal.distribution(z)
        guard below > 1e-12 else { return (bound - mean) * (bound - mean) }
        return deviation * deviation * max(1 - z * StandardNormal.density(z) / below, 0)
    }
}
