import Foundation

/// The sliding memory of the self-calibration: per (gateway, beacon) pair, an exponentially
/// weighted count, mean and spread of the RSSI heard and the number of windows it was heard in;
/// per gateway the number of windows it reported any beacon in (half-life
/// ``CalibrationConfiguration/halfLife``). A pair heard in only part of its gateway's windows is
/// near the receiver's sensitivity: its mean reads hot, and the fit corrects it from that share.
///
/// Memory is bounded by the pairs that exist (gateways × the beacons each hears), whatever the
/// rate or duration of sightings; adding one sighting is two dictionary updates.
public struct CalibrationWindow: Sendable, Hashable {
    /// One pair's decayed sums, as of `time`.
    public struct Pair: Sendable, Hashable {
        /// Decayed number of advertisements.
        public var weight: Double
        /// Decayed Σ count · rssi.
        public var sum: Double
        /// Seconds (the caller's clock) the sums were last decayed to.
        public var time: Double
        /// Decayed Σ count · rssi² (the spread of the windows' means).
        public var squares: Double = 0
        /// Decayed number of windows (sightings) the pair was heard in.
        public var windows: Double = 0
        /// The weighted mean RSSI, dBm.
        public var mean: Double { weight > 0 ? sum / weight : 0 }
        /// The weighted standard deviation of the windows' mean RSSI, dB.
        public var deviation: Double { weight > 0 ? max(squares / weight - mean * mean, 0).squareRoot() : 0 }
    }

    /// One gateway's decayed count of windows with any beacon heard.
    struct Source: Sendable, Hashable {
        var windows: Double
        /// Seconds the count was last decayed to, and the last window's time.
        var time: Double
        var last: Double
    }

    struct Key: Hashable, Sendable {
        var gateway: Int32
        var beacon: Int32
    }

    /// Half-life, seconds.
    public var halfLife: Double
    private(set) var pairs: [Key: Pair] = [:]
    private(set) var sources: [Int32: Source] = [:]

    public init(halfLife: Double = 900) {
        self.halfLife = max(halfLife, 1)
    }

    /// Pairs held.
    public var count: Int { pairs.count }

    /// Notes that `gateway` heard `beacon` `count` times at mean `rssi` in its window ending at
    /// `time` (seconds; sightings of one window share it).
    public mutating func add(gateway: Int32, beacon: Int32, rssi: Double, count: Int, time: Double) {
        guard rssi.isFinite, count > 0 else { return }
        let n = Double(count)
        let key = Key(gateway: gateway, beacon: beacon)
        if var pair = pairs[key] {
            if time > pair.time {
                let decay = Self.decay(time - pair.time, halfLife: halfLife)
                pair.weight *= decay
                pair.sum *= decay
                pair.squares *= decay
                pair.windows *= decay
                pair.time = time
            }
            pair.weight += n
            pair.sum += n * rssi
            pair.squares += n * rssi * rssi
            pair.windows += 1
            pairs[key] = pair
        } else {
            pairs[key] = Pair(weight: n, sum: n * rssi, time: time, squares: n * rssi * rssi, windows: 1)
        }
        if var source = sources[gateway] {
            guard time != source.last else { return }
            if time > source.time {
                source.windows *= Self.decay(time - source.time, halfLife: halfLife)
                source.time = time
            }
            source.windows += 1
            source.last = time
            sources[gateway] = source
        } else {
            sources[gateway] = Source(windows: 1, time: time, last: time)
        }
    }

    /// Every pair decayed to `time`: (gateway, beacon, mean RSSI, weight, and the windows it was
    /// heard in against its gateway's).
    public func snapshot(at time: Double) -> [CalibrationPair] {
        pairs.map { key, pair in
            let decay = time > pair.time ? Self.decay(time - pair.time, halfLife: halfLife) : 1
            let source = sources[key.gateway]
            let possible = source.map { $0.windows * (time > $0.time ? Self.decay(time - $0.time, halfLife: halfLife) : 1) }
            return CalibrationPair(
                gateway: Int(key.gateway), beacon: Int(key.beacon), rssi: pair.mean, readings: pair.weight * decay,
                windows: pair.windows * decay, gatewayWindows: possible, deviation: pair.deviation)
        }.sorted { ($0.gateway, $0.beacon) < ($1.gateway, $1.beacon) }
    }

    /// Forgets pairs (and gateways) whose weight has decayed below `minimum` at `time` (bounds
    /// memory after a beacon or gateway goes away).
    public mutating func prune(at time: Double, minimum: Double = 0.5) {
        pairs = pairs.filter { _, pair in pair.weight * Self.decay(max(time - pair.time, 0), halfLife: halfLife) >= minimum }
        sources = sources.filter { _, source in source.windows * Self.decay(max(time - source.time, 0), halfLife: halfLife) >= minimum }
    }

    /// Forgets everything (after a topology reload renumbers gateways and beacons).
    public mutating func removeAll() {
        pairs.removeAll()
        sources.removeAll()
    }

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
    /// Windows the pair was heard in, and windows its gateway reported any beacon in (decayed):
    /// their ratio is how often the beacon got through the receiver's sensitivity. Nil when not
    /// known (the mean is then taken as it is).
    public var windows: Double?
    public var gatewayWindows: Double?
    /// Standard deviation of the windows' mean RSSI, dB (nil when not known).
    public var deviation: Double?

    public init(
        gateway: Int, beacon: Int, rssi: Double, readings: Double, windows: Double? = nil, gatewayWindows: Double? = nil,
        deviation: Double? = nil
    ) {
        self.gateway = gateway
        self.beacon = beacon
        self.rssi = rssi
        self.readings = readings
        self.windows = windows
        self.gatewayWindows = gatewayWindows
        self.deviation = deviation
    }

    /// The share of its gateway's windows the pair was heard in (nil when not known).
    public var heardShare: Double? {
        guard let windows, let gatewayWindows, gatewayWindows > 0 else { return nil }
        return min(windows / gatewayWindows, 1)
    }
}
