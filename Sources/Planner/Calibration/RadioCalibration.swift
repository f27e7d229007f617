import Foundation

/// Fitted radio calibration of a venue: per gateway an RSSI offset and a path-loss exponent, per
/// fixed beacon its measured power at 1 m, fitted from the gateways' sightings of beacons at
/// known positions.
///
/// The model of gateway *g* hearing beacon *b* at 3-D distance *d*:
///
///     rssi = power(b) + offset(g) − 10 · exponent(g) · log10(d)
///
/// `power(b)` is the beacon's declared power (`regions.csv`'s `power`, fixed) or the venue's
/// default plus a fitted correction. The fit alternates a robust (Huber) line per gateway of
/// `rssi − power(b)` on `log10(d)` with each free beacon's correction as the median of its
/// residuals across gateways; beacon corrections are centred on zero when no beacon declares its
/// power (offsets and powers are only known up to a shared constant otherwise). Beacons whose
/// residuals stay far off (moved or replaced) are flagged and left out of the lines.
public struct RadioCalibration: Sendable, Hashable, Codable {
    /// A gateway as the fit sees it.
    public struct GatewayInput: Sendable, Hashable {
        public var id: String
        public var x: Double, y: Double, height: Double
        public var level: String
        /// Values declared in `gateways.csv`: kept, not fitted.
        public var fixedOffset: Double?
        public var fixedExponent: Double?

        public init(
            id: String, x: Double, y: Double, height: Double, level: String, fixedOffset: Double? = nil, fixedExponent: Double? = nil
        ) {
            self.id = id
            self.x = x
            self.y = y
            self.height = height
            self.level = level
            self.fixedOffset = fixedOffset
            self.fixedExponent = fixedExponent
        }
    }

    /// A fixed beacon at a known position.
    public struct BeaconInput: Sendable, Hashable {
        public var id: String
        public var x: Double, y: Double, height: Double
        public var level: String
        /// Its measured power at 1 m, dBm: declared, or the venue's default.
        public var power: Double
        /// Whether `power` was declared (then it is not fitted).
        public var powerFixed: Bool

        public init(id: String, x: Double, y: Double, height: Double, level: String, power: Double, powerFixed: Bool) {
            self.id = id
            self.x = x
            self.y = y
            self.height = height
            self.level = level
            self.power = power
            self.powerFixed = powerFixed
        }
    }

    /// One gateway's fit.
    public struct GatewayFit: Sendable, Hashable, Codable {
        public var id: String
        /// dB added to the model's expected RSSI for this gateway (positive: it reads hot).
        public var offset: Double
        public var exponent: Double
        /// Robust standard deviation of its residuals, dB.
        public var spread: Double
        /// Beacons (pairs) used, and the advertisements behind them.
        public var beacons: Int
        public var readings: Double
        /// `fixed` (declared in gateways.csv), `insufficient` (below the minimum evidence: not
        /// used), `exponent-clamped`, `offset-clamped`, `exponent-default` (beacons at one distance).
        public var flags: [String]
        /// Whether the estimator uses these values (enough evidence, or declared).
        public var usable: Bool
    }

    /// One beacon's fit.
    public struct BeaconFit: Sendable, Hashable, Codable {
        public var id: String
        /// Its measured power at 1 m, dBm (declared, or the default plus the fitted correction).
        public var power: Double
        /// The fitted correction to the default power, dB (0 when declared).
        public var correction: Double
        /// Robust spread of its residuals across gateways, dB.
        public var spread: Double
        public var gateways: Int
        /// `fixed` (declared power), `moved` (residuals inconsistent across gateways, or its power
        /// far from the others': moved or replaced; left out of the gateway fits).
        public var flags: [String]
    }

    public var gateways: [GatewayFit]
    public var beacons: [BeaconFit]
    /// Pairs used in all.
    public var pairs: Int

    /// The gateway fit with this id.
    public func gateway(_ id: String) -> GatewayFit? { gateways.first { $0.id == id } }
    /// The beacon fit with this id.
    public func beacon(_ id: String) -> BeaconFit? { beacons.first { $0.id == id } }

    /// Fits gateways and beacons from aggregated `pairs` (indices into `gateways` and `beacons`).
    /// Pairs across levels, closer than the minimum distance or beyond the gateway's complete
    /// radius (see ``CalibrationConfiguration/completeness``) are not used.
    public static func fit(
        gateways: [GatewayInput], beacons: [BeaconInput], pairs: [CalibrationPair], configuration: CalibrationConfiguration = .init()
    ) -> RadioCalibration {
        struct Point {
            var gateway: Int, beacon: Int
            var x: Double, rssi: Double, readings: Double
        }
        // Each gateway uses the beacons within its *complete* radius: the largest distance within
        // which at least `completeness` of the venue's beacons are heard steadily (at least half as
        // many readings as its best pair). Beyond it only the lucky readings of far beacons are
        // heard, and their means would read hot and flatten the line; choosing by distance, never
        // by the RSSI heard, keeps the fit unbiased.
        var radius = [Double](repeating: .infinity, count: gateways.count)
        do {
            var pairIndex: [Int: [Int: Double]] = [:]
            for pair in pairs { pairIndex[pair.gateway, default: [:]][pair.beacon] = pair.readings }
            for (g, gateway) in gateways.enumerated() {
                let heard = pairIndex[g] ?? [:]
                let steady = 0.5 * (heard.values.max() ?? 0)
                var candidates: [(d: Double, heard: Bool)] = []
                for (b, beacon) in beacons.enumerated() where beacon.level == gateway.level {
                    let dx = gateway.x - beacon.x
                    let dy = gateway.y - beacon.y
                    let dz = gateway.height - beacon.height
                    let d = (dx * dx + dy * dy + dz * dz).squareRoot()
                    guard d >= configuration.minimumDistance else { continue }
                    candidates.append((d, (heard[b] ?? 0) >= max(steady, configuration.minimumPairReadings)))
                }
                candidates.sort { $0.d < $1.d }
                var count = 0
                var heardCount = 0
                var best = 0.0
                for candidate in candidates {
                    count += 1
                    if candidate.heard { heardCount += 1 }
                    if candidate.heard, Double(heardCount) >= configuration.completeness * Double(count) { best = candidate.d }
                }
                radius[g] = best
            }
        }
        var points: [Point] = []
        for pair in pairs {
            guard gateways.indices.contains(pair.gateway), beacons.indices.contains(pair.beacon),
                pair.readings >= configuration.minimumPairReadings, pair.rssi.isFinite
            else { continue }
            let g = gateways[pair.gateway]
            let b = beacons[pair.beacon]
            guard g.level == b.level else { continue }
            let dx = g.x - b.x
            let dy = g.y - b.y
            let dz = g.height - b.height
            let d = (dx * dx + dy * dy + dz * dz).squareRoot()
            guard d >= configuration.minimumDistance, d <= radius[pair.gateway] + 1e-9 else { continue }
            points.append(Point(gateway: pair.gateway, beacon: pair.beacon, x: log10(d), rssi: pair.rssi, readings: pair.readings))
        }
        var byGateway = [[Int]](repeating: [], count: gateways.count)
        var byBeacon = [[Int]](repeating: [], count: beacons.count)
        for (i, p) in points.enumerated() {
            byGateway[p.gateway].append(i)
            byBeacon[p.beacon].append(i)
        }
        let anyDeclared = beacons.contains { $0.powerFixed }
        var correction = [Double](repeating: 0, count: beacons.count)
        var excluded = [Bool](repeating: false, count: beacons.count)
        var lines = [RobustLine?](repeating: nil, count: gateways.count)
        let slopeRange = (-10 * configuration.exponentRange.upperBound)...(-10 * configuration.exponentRange.lowerBound)
        var beaconSpread = [Double](repeating: 0, count: beacons.count)

        for _ in 0..<max(configuration.rounds, 1) {
            // Gateway lines on the beacons not flagged: first each on its own, for the venue's
            // pooled slope (weighted by each gateway's spread in distance), then pulled towards it.
            func data(_ g: Int) -> [(x: Double, y: Double, weight: Double)] {
                byGateway[g].filter { !excluded[points[$0].beacon] }.map { i in
                    let p = points[i]
                    return (p.x, p.rssi - beacons[p.beacon].power, 1)
                }
            }
            let pooled =
                RobustLine.pooledSlope(
                    gateways.indices.filter { gateways[$0].fixedExponent == nil }.map { (data($0), gateways[$0].fixedOffset) },
                    fallbackSlope: -10 * configuration.defaultExponent, slopeRange: slopeRange, huber: configuration.huber)
                ?? -10 * configuration.defaultExponent
            for (g, gateway) in gateways.enumerated() {
                let data = data(g)
                lines[g] = RobustLine.fit(
                    data, fixedIntercept: gateway.fixedOffset, fixedSlope: gateway.fixedExponent.map { -10 * $0 },
                    slopePrior: (min(max(pooled, slopeRange.lowerBound), slopeRange.upperBound), configuration.exponentPrior),
                    fallbackSlope: -10 * configuration.defaultExponent, slopeRange: slopeRange, huber: configuration.huber)
                if var line = lines[g], gateway.fixedOffset == nil, abs(line.intercept) > configuration.maximumOffset {
                    // An offset out of bounds: hold it at the bound and refit the exponent through it.
                    let bound = line.intercept > 0 ? configuration.maximumOffset : -configuration.maximumOffset
                    line =
                        RobustLine.fit(
                            data, fixedIntercept: bound, fixedSlope: gateway.fixedExponent.map { -10 * $0 },
                            fallbackSlope: -10 * configuration.defaultExponent, slopeRange: slopeRange, huber: configuration.huber) ?? line
                    lines[g] = line
                }
            }
            // Beacon corrections: the median residual across gateways; flagged when far off.
            var free: [Double] = []
            for (b, beacon) in beacons.enumerated() {
                var residuals = byBeacon[b].compactMap { i -> Double? in
                    guard let line = lines[points[i].gateway] else { return nil }
                    let p = points[i]
                    return p.rssi - beacon.power - line.intercept - line.slope * p.x
                }
                guard residuals.count >= configuration.minimumGateways else {
                    correction[b] = 0
                    excluded[b] = false
                    continue
                }
                let level = beacon.powerFixed ? 0 : RobustLine.median(&residuals)
                var deviations = residuals.map { abs($0 - level) }
                beaconSpread[b] = 1.4826 * RobustLine.median(&deviations)
                correction[b] = level
                if !beacon.powerFixed { free.append(level) }
            }
            if !anyDeclared, !free.isEmpty {
                var sorted = free
                let centre = RobustLine.median(&sorted)
                for b in beacons.indices where !beacons[b].powerFixed { correction[b] -= centre }
            }
            var powerDeviations = beacons.indices.filter { !beacons[$0].powerFixed && byBeacon[$0].count >= configuration.minimumGateways }
                .map { abs(correction[$0]) }
            let typical = max(1.4826 * RobustLine.median(&powerDeviations), 1)
            var spreads = beacons.indices.filter { byBeacon[$0].count >= configuration.minimumGateways }.map { beaconSpread[$0] }
            let typicalSpread = RobustLine.median(&spreads)
            for b in beacons.indices where byBeacon[b].count >= configuration.minimumGateways {
                let scattered = beaconSpread[b] > max(configuration.movedThreshold, 3 * typicalSpread)
                let powerOff = !beacons[b].powerFixed && abs(correction[b]) > max(configuration.movedThreshold, 3 * typical)
                excluded[b] = scattered || powerOff
            }
        }

        var gatewayFits: [GatewayFit] = []
        for (g, gateway) in gateways.enumerated() {
            let used = byGateway[g].filter { !excluded[points[$0].beacon] }
            let readings = used.reduce(0.0) { $0 + points[$1].readings }
            var flags: [String] = []
            if gateway.fixedOffset != nil || gateway.fixedExponent != nil { flags.append("fixed") }
            let line = lines[g]
            let enough = used.count >= configuration.minimumBeacons && readings >= configuration.minimumReadings
            if !enough { flags.append("insufficient") }
            if line?.clamped == true { flags.append("exponent-clamped") }
            if let line, gateway.fixedOffset == nil, abs(line.intercept) >= configuration.maximumOffset - 1e-9 { flags.append("offset-clamped") }
            var xs = used.map { points[$0].x }
            let xMean = xs.isEmpty ? 0 : xs.reduce(0, +) / Double(xs.count)
            xs = xs.map { ($0 - xMean) * ($0 - xMean) }
            if gateway.fixedExponent == nil, !used.isEmpty, (xs.reduce(0, +) / Double(xs.count)).squareRoot() < 0.1 {
                flags.append("exponent-default")
            }
            let offset = gateway.fixedOffset ?? (enough ? line?.intercept ?? 0 : 0)
            let exponent = gateway.fixedExponent ?? (enough ? line.map { -$0.slope / 10 } ?? configuration.defaultExponent : configuration.defaultExponent)
            gatewayFits.append(
                GatewayFit(
                    id: gateway.id, offset: offset, exponent: exponent, spread: line?.spread ?? 0, beacons: used.count, readings: readings,
                    flags: flags, usable: enough || gateway.fixedOffset != nil || gateway.fixedExponent != nil))
        }
        var beaconFits: [BeaconFit] = []
        for (b, beacon) in beacons.enumerated() where !byBeacon[b].isEmpty {
            var flags: [String] = []
            if beacon.powerFixed { flags.append("fixed") }
            if excluded[b] { flags.append("moved") }
            let applied = beacon.powerFixed || excluded[b] ? 0 : correction[b]
            beaconFits.append(
                BeaconFit(
                    id: beacon.id, power: beacon.power + applied, correction: applied, spread: beaconSpread[b], gateways: byBeacon[b].count,
                    flags: flags))
        }
        return RadioCalibration(gateways: gatewayFits, beacons: beaconFits, pairs: points.count)
    }
}
