import Foundation

/// The sliding memory of the self-calibration: per (gateway, beacon) pair, an exponentially
/// weighted count and mean of the RSSI heard (half-life ``CalibrationConfiguration/halfLife``).
///
/// Memory is bounded by the pairs that exist (gateways × the beacons each hears), whatever the
/// rate or duration of sightings; adding one sighting is a dictionary update.
public struct CalibrationWindow: Sendable, Hashable {
    /// One pair's decayed sums, as of `time`.
    public struct Pair: Sendable, Hashable {
        /// Decayed number of advertisements.
        public var weight: Double
        /// Decayed Σ count · rssi.
        public var sum: Double
        /// Seconds (the caller's clock) the sums were last decayed to.
        public var time: Double
        /// The weighted mean RSSI, dBm.
        public var mean: Double { weight > 0 ? sum / weight : 0 }
    }

    struct Key: Hashable, Sendable {
        var gateway: Int32
        var beacon: Int32
    }

    /// Half-life, seconds.
    public var halfLife: Double
    private(set) var pairs: [Key: Pair] = [:]

    public init(halfLife: Double = 900) {
        self.halfLife = max(halfLife, 1)
    }

    /// Pairs held.
    public var count: Int { pairs.count }

    /// Notes that `gateway` heard `beacon` `count` times at mean `rssi` at `time` (seconds).
    public mutating func add(gateway: Int32, beacon: Int32, rssi: Double, count: Int, time: Double) {
        guard rssi.isFinite, count > 0 else { return }
        let n = Double(count)
        let key = Key(gateway: gateway, beacon: beacon)
        if var pair = pairs[key] {
            if time > pair.time {
                let decay = Self.decay(time - pair.time, halfLife: halfLife)
                pair.weight *= decay
                pair.sum *= decay
                pair.time = time
            }
            pair.weight += n
            pair.sum += n * rssi
            pairs[key] = pair
        } else {
            pairs[key] = Pair(weight: n, sum: n * rssi, time: time)
        }
    }

    /// Every pair decayed to `time`: (gateway, beacon, mean RSSI, weight).
    public func snapshot(at time: Double) -> [CalibrationPair] {
        pairs.map { key, pair in
            let decay = time > pair.time ? Self.decay(time - pair.time, halfLife: halfLife) : 1
            return CalibrationPair(gateway: Int(key.gateway), beacon: Int(key.beacon), rssi: pair.mean, readings: pair.weight * decay)
        }.sorted { ($0.gateway, $0.beacon) < ($1.gateway, $1.beacon) }
    }

    /// Forgets pairs whose weight has decayed below `minimum` at `time` (bounds memory after a
    /// beacon or gateway goes away).
    public mutating func prune(at time: Double, minimum: Double = 0.5) {
        pairs = pairs.filter { _, pair in pair.weight * Self.decay(max(time - pair.time, 0), halfLife: halfLife) >= minimum }
    }

    /// Forgets everything (after a topology reload renumbers gateways and beacons).
    public mutating func removeAll() { pairs.removeAll() }

    static func decay(_ elapsed: Double, halfLife: Double) -> Double {
        exp2(-elapsed / halfLife)
    }
}

/// One (gateway, beacon) pair's aggregated evidence, by the calibration input's indices.
public struct CalibrationPair: Sendable, Hashable, Codable {
    public var gateway: Int
    public var beacon: Int
    /// Mean RSSI, dBm.
    public var rssi: Double
    /// Advertisements behind the mean (decayed).
    public var readings: Double

    public init(gateway: Int, beacon: Int, rssi: Double, readings: Double) {
        self.gateway = gateway
        self.beacon = beacon
        self.rssi = rssi
        self.readings = readings
    }
}
