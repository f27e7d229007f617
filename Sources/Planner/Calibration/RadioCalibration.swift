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
            /// `rssi` is an upper bound: the beacon was (next to) never heard.
            var censored = false
            /// Heard in only part of its gateway's windows (its mean corrected for that).
            var partial = false
        }
        func distance(_ g: Int, _ b: Int) -> Double? {
            let gateway = gateways[g]
            let beacon = beacons[b]
            guard gateway.level == beacon.level else { return nil }
            let dx = gateway.x - beacon.x
            let dy = gateway.y - beacon.y
            let dz = gateway.height - beacon.height
            return (dx * dx + dy * dy + dz * dz).squareRoot()
        }
        let usablePairs = pairs.filter {
            gateways.indices.contains($0.gateway) && beacons.indices.contains($0.beacon) && $0.rssi.isFinite
                && $0.readings >= configuration.minimumPairReadings
        }
        var points: [Point] = []
        if let censoring = CensoredPairs(pairs: usablePairs, gateways: gateways.count, configuration: configuration) {
            // Pairs carry how often they were heard: every beacon within the farthest one heard
            // often enough counts, heard ones by their censoring-corrected mean, the others as
            // upper bounds (see ``CensoredPairs``), so nothing is chosen by the RSSI heard.
            for pair in usablePairs {
                guard let mean = censoring.mean(pair), let d = distance(pair.gateway, pair.beacon), d >= configuration.minimumDistance
                else { continue }
                points.append(
                    Point(
                        gateway: pair.gateway, beacon: pair.beacon, x: log10(d), rssi: mean, readings: pair.readings,
                        partial: (pair.heardShare ?? 1) < CensoredPairs.steadyShare))
            }
            // Beyond 1.5 times the farthest beacon heard a beacon is expected about 4 dB (exponent
            // 2.2) or more below it, under the sensitivity by more than the windows' spread:
            // such pairs carry next to nothing and are left out (they would cost the most).
            var heard = Set<Int>()
            var radius = [Double](repeating: 0, count: gateways.count)
            for point in points {
                heard.insert(point.gateway * beacons.count + point.beacon)
                radius[point.gateway] = max(radius[point.gateway], pow(10, point.x))
            }
            for g in gateways.indices {
                guard let bound = censoring.bound(gateway: g) else { continue }
                for b in beacons.indices where !heard.contains(g * beacons.count + b) {
                    guard let d = distance(g, b), d >= configuration.minimumDistance, d <= 1.5 * radius[g] else { continue }
                    points.append(Point(gateway: g, beacon: b, x: log10(d), rssi: bound, readings: 0, censored: true))
                }
            }
        } else {
            // Each gateway uses the beacons within its *complete* radius: the largest distance within
            // which at least `completeness` of the venue's beacons are heard steadily (at least half as
            // many readings as its best pair). Beyond it only the lucky readings of far beacons are
            // heard, and their means would read hot and flatten the line; choosing by distance, never
            // by the RSSI heard, keeps the fit unbiased.
            var radius = [Double](repeating: .infinity, count: gateways.count)
            var pairIndex: [Int: [Int: Double]] = [:]
            for pair in pairs { pairIndex[pair.gateway, default: [:]][pair.beacon] = pair.readings }
            for g in gateways.indices {
                let heard = pairIndex[g] ?? [:]
                let steady = 0.5 * (heard.values.max() ?? 0)
                var candidates: [(d: Double, heard: Bool)] = []
                for b in beacons.indices {
                    guard let d = distance(g, b), d >= configuration.minimumDistance else { continue }
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
            for pair in usablePairs {
                guard let d = distance(pair.gateway, pair.beacon), d >= configuration.minimumDistance, d <= radius[pair.gateway] + 1e-9
                else { continue }
                points.append(Point(gateway: pair.gateway, beacon: pair.beacon, x: log10(d), rssi: pair.rssi, readings: pair.readings))
            }
        }
        var byGateway = [[Int]](repeating: [], count: gateways.count)
        var byBeacon = [[Int]](repeating: [], count: beacons.count)
        var censoredByGateway = [[Int]](repeating: [], count: gateways.count)
        for (i, p) in points.enumerated() {
            if p.censored {
                censoredByGateway[p.gateway].append(i)
            } else {
                byGateway[p.gateway].append(i)
                byBeacon[p.beacon].append(i)
            }
        }
        // The scatter of heard pairs about their gateway's line (static multipath), for the
        // censored pairs' expected values.
        var scatter = 3.0
        let anyDeclared = beacons.contains { $0.powerFixed }
        var correction = [Double](repeating: 0, count: beacons.count)
        var excluded = [Bool](repeating: false, count: beacons.count)
        var lines = [RobustLine?](repeating: nil, count: gateways.count)
        let slopeRange = (-10 * configuration.exponentRange.upperBound)...(-10 * configuration.exponentRange.lowerBound)
        var beaconSpread = [Double](repeating: 0, count: beacons.count)
        var beaconSquares = [Double](repeating: 0, count: beacons.count)

        for _ in 0..<max(configuration.rounds, 1) {
            let previous = (lines: lines, excluded: excluded)
            // Gateway lines on the beacons not flagged: first each on its own, for the venue's
            // pooled slope (weighted by each gateway's spread in distance), then pulled towards it.
            // A beacon not heard (often enough) counts at its expected level below its bound given
            // the gateway's previous line (the EM step of a censored regression).
            // Pairs near the sensitivity (heard in part of the windows, or not at all) are not
            // Huber-weighted: see ``RobustLine/fit(_:fixedIntercept:fixedSlope:slopePrior:fallbackSlope:slopeRange:huber:minimumSpread:minimumXSpread:iterations:scale:unweighted:)``.
            func data(_ g: Int) -> (points: [(x: Double, y: Double, weight: Double)], unweighted: [Bool]) {
                var data: [(x: Double, y: Double, weight: Double)] = []
                var unweighted: [Bool] = []
                for i in byGateway[g] where !excluded[points[i].beacon] {
                    let p = points[i]
                    data.append((p.x, p.rssi - beacons[p.beacon].power, 1))
                    unweighted.append(p.partial)
                }
                if let line = lines[g] {
                    for i in censoredByGateway[g] where !excluded[points[i].beacon] {
                        // A pair the line already puts well below its bound carries next to no
                        // information, but counted at the line's own value it would hold the line
                        // where it is and slow the rounds down many times over: left out.
                        let p = points[i]
                        let bound = p.rssi - beacons[p.beacon].power
                        let mean = line.intercept + line.slope * p.x
                        guard bound - mean < CensoredPairs.informative * scatter else { continue }
                        data.append((p.x, CensoredPairs.expectedBelow(bound, mean: mean, deviation: scatter), 1))
                        unweighted.append(true)
                    }
                }
                return (data, unweighted)
            }
            // With censored pairs among the points the Huber threshold comes from the heard pairs'
            // scatter (their expected values would understate it).
            let knownScale = lines.contains { $0 != nil } && censoredByGateway.contains { !$0.isEmpty } ? scatter : nil
            let freeGateways = gateways.indices.filter { gateways[$0].fixedExponent == nil }.map {
                (data: data($0), offset: gateways[$0].fixedOffset)
            }
            let pooled =
                RobustLine.pooledSlope(
                    freeGateways.map { ($0.data.points, $0.offset) }, fallbackSlope: -10 * configuration.defaultExponent,
                    slopeRange: slopeRange,
                    huber: configuration.huber, scale: knownScale, unweighted: freeGateways.map(\.data.unweighted))
                ?? -10 * configuration.defaultExponent
            for (g, gateway) in gateways.enumerated() {
                let (data, unweighted) = data(g)
                lines[g] = RobustLine.fit(
                    data, fixedIntercept: gateway.fixedOffset, fixedSlope: gateway.fixedExponent.map { -10 * $0 },
                    slopePrior: (min(max(pooled, slopeRange.lowerBound), slopeRange.upperBound), configuration.exponentPrior),
                    fallbackSlope: -10 * configuration.defaultExponent, slopeRange: slopeRange, huber: configuration.huber,
                    scale: knownScale,
                    unweighted: unweighted)
                if var line = lines[g], gateway.fixedOffset == nil, abs(line.intercept) > configuration.maximumOffset {
                    // An offset out of bounds: hold it at the bound and refit the exponent through it.
                    let bound = line.intercept > 0 ? configuration.maximumOffset : -configuration.maximumOffset
                    line =
                        RobustLine.fit(
                            data, fixedIntercept: bound, fixedSlope: gateway.fixedExponent.map { -10 * $0 },
                            fallbackSlope: -10 * configuration.defaultExponent, slopeRange: slopeRange, huber: configuration.huber,
                            scale: knownScale, unweighted: unweighted) ?? line
                    lines[g] = line
                }
            }
            var residuals = byGateway.indices.flatMap { g in
                byGateway[g].compactMap { i -> Double? in
                    guard let line = lines[g], !excluded[points[i].beacon] else { return nil }
                    return abs(points[i].rssi - beacons[points[i].beacon].power - line.intercept - line.slope * points[i].x)
                }
            }
            if !residuals.isEmpty {
                // The heard pairs' robust spread, with each censored pair's expected squared
                // residual below its bound (the EM step's variance): the heard pairs alone are
                // the louder ones near the sensitivity and would understate it.
                let heardSpread = 1.4826 * RobustLine.median(&residuals)
                var sum = heardSpread * heardSpread * Double(residuals.count)
                var count = Double(residuals.count)
                for g in gateways.indices {
                    guard let line = lines[g] else { continue }
                    for i in censoredByGateway[g] where !excluded[points[i].beacon] {
                        let p = points[i]
                        let bound = p.rssi - beacons[p.beacon].power
                        let mean = line.intercept + line.slope * p.x
                        guard bound - mean < CensoredPairs.informative * scatter else { continue }
                        sum += CensoredPairs.squareBelow(bound, mean: mean, deviation: scatter)
                        count += 1
                    }
                }
                scatter = max((sum / count).squareRoot(), 0.5)
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
                beaconSquares[b] = deviations.reduce(0) { $0 + $1 * $1 }
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
                // Beyond what chance gives a beacon heard by k gateways, with the pairs' scatter
                // s: its power (a median of k residuals) off by more than 3 · 1.25 s/√k, or the
                // squares of its residuals about it above s² times the 99.9 % point of χ²(k − 1).
                // A beacon heard by 3 or 4 gateways otherwise reads "moved" by chance (a spread of
                // 6-7 dB, a power 5 dB off, with 3 dB of static multipath per pair).
                let k = Double(byBeacon[b].count)
                let scattered =
                    beaconSpread[b] > max(configuration.movedThreshold, 3 * typicalSpread)
                    && beaconSquares[b] > scatter * scatter * StandardNormal.chiSquareQuantile(0.999, degrees: k - 1)
                let powerOff =
                    !beacons[b].powerFixed
                    && abs(correction[b]) > max(configuration.movedThreshold, 3 * typical, 3 * 1.2533 * scatter / k.squareRoot())
                excluded[b] = scattered || powerOff
            }
            // Converged: no line moved by more than a hundredth of a dB (at 1 m or per decade) and
            // the same beacons are left out.
            let settled = zip(previous.lines, lines).allSatisfy { old, new in
                guard let old, let new else { return old == nil && new == nil }
                return abs(old.intercept - new.intercept) < 0.01 && abs(old.slope - new.slope) < 0.01
            }
            if settled, previous.excluded == excluded { break }
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
            if let line, gateway.fixedOffset == nil, abs(line.intercept) >= configuration.maximumOffset - 1e-9 {
                flags.append("offset-clamped")
            }
            var xs = used.map { points[$0].x }
            let xMean = xs.isEmpty ? 0 : xs.reduce(0, +) / Double(xs.count)
            xs = xs.map { ($0 - xMean) * ($0 - xMean) }
            if gateway.fixedExponent == nil, !used.isEmpty, (xs.reduce(0, +) / Double(xs.count)).squareRoot() < 0.1 {
                flags.append("exponent-default")
            }
            let offset = gateway.fixedOffset ?? (enough ? line?.intercept ?? 0 : 0)
            let exponent =
                gateway.fixedExponent
                ?? (enough ? line.map { -$0.slope / 10 } ?? configuration.defaultExponent : configuration.defaultExponent)
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
