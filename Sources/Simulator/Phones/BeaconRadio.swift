import BeaconKit
import Foundation
public import Topology

/// What a phone's radio hears of the venue's region beacons, per IOS.md: a beacon is detected
/// when its reading (its `power` at 1 m, else the venue's; the venue's path-loss exponent;
/// log-normal body shadowing; a loss per floor, at most one floor away) reaches the venue's
/// sensitivity. The noise is addressed by (client, tick, region), so every strategy and every
/// run with the seed sees the same readings. Also where the regions' arrival disks are.
public struct BeaconRadio: Sendable {
    public let topology: Topology
    /// Body shadowing of one reading, dB, and the loss per floor, dB.
    public let shadowing: Double
    public let floorAttenuation: Double
    let noise: CounterNoise
    /// Placed regions by level: index, x, y, radius.
    let placed: [String: [(region: Int, x: Double, y: Double, radius: Double)]]
    let levelOrder: [String: Int]

    /// Per region: the true measured power of its beacon (dBm at 1 m): its declared power, unless
    /// the family draws the venue's powers (then nobody tells the coordinator).
    public let powers: [Double]

    /// A radio on `topology`; `shadowing` defaults to the venue's (``RadioEnvironment/shadowing``);
    /// `family` says whether the beacons' true powers are the declared ones or drawn (with `seed`).
    public init(topology: Topology, seed: UInt64, shadowing: Double? = nil, floorAttenuation: Double = 15, family: PhoneFamily = .declared)
    {
        self.topology = topology
        self.shadowing = shadowing ?? topology.radio.shadowing
        self.floorAttenuation = floorAttenuation
        self.noise = CounterNoise(seed: seed)
        powers = topology.regions.indices.map { index in
            family.truePower(seed: seed, region: index) ?? Double(topology.regions[index].measuredPower ?? topology.radio.measuredPower)
        }
        var placed: [String: [(region: Int, x: Double, y: Double, radius: Double)]] = [:]
        for (index, region) in topology.regions.enumerated() {
            guard let p = region.position else { continue }
            placed[p.level, default: []].append((index, p.x, p.y, region.radius))
        }
        self.placed = placed
        self.levelOrder = Dictionary(
            uniqueKeysWithValues: topology.levels.enumerated()
                .sorted { ($0.element.elevation, $0.offset) < ($1.element.elevation, $1.offset) }.enumerated().map { ($1.element.id, $0) })
    }

    /// The beacons detected from `point` at `tick` by `client`, with their readings, in region order:
    /// the venue's exponent and shadowing, independent readings every step.
    public func readings(at point: VenuePoint, client: Int, tick: Int) -> [(region: Int, rssi: Int)] {
        readings(at: point, model: topology.radio.distanceModel, offset: 0) { region in
            shadowing * noise.normal(UInt64(client), UInt64(tick), UInt64(region))
        }
    }

    /// The beacons detected from `point` through `model` (its exponent), each reading offset by
    /// `offset` dB plus `deviation(region)` dB, in region order.
    func readings(
        at point: VenuePoint, model: LogDistanceModel, offset: Double, deviation: (Int) -> Double
    ) -> [(region: Int, rssi: Int)] {
        var heard: [(region: Int, rssi: Int)] = []
        let sensitivity = topology.radio.sensitivity
        let order = levelOrder[point.level] ?? 0
        for (level, regions) in placed {
            let floors = abs((levelOrder[level] ?? 0) - order)
            if floors > 1 { continue }
            for region in regions {
                let mean =
                    model.expectedRSSI(atDistance: Self.distance(region, point), referencePower: powers[region.region])
                    - Double(floors) * floorAttenuation
                let rssi = (mean + offset + deviation(region.region)).rounded()
                if rssi >= sensitivity { heard.append((region.region, Int(Swift.max(rssi, -127)))) }
            }
        }
        return heard.sorted { $0.region < $1.region }
    }

    /// The 3-D distance from a phone at `point` to a beacon 1.3 m above it.
    static func distance(_ region: (region: Int, x: Double, y: Double, radius: Double), _ point: VenuePoint) -> Double {
        let dx = region.x - point.x
        let dy = region.y - point.y
        return Swift.max((dx * dx + dy * dy + 1.69).squareRoot(), 0.1)
    }

    /// Placed regions whose radius contains `point` (same level, straight line): where the phone has *arrived*.
    public func regionsWithin(_ point: VenuePoint) -> Set<Int> {
        var result = Set<Int>()
        for region in placed[point.level] ?? [] {
            let dx = region.x - point.x
            let dy = region.y - point.y
            if dx * dx + dy * dy <= region.radius * region.radius { result.insert(region.region) }
        }
        return result
    }
}

/// One phone's ears on a ``BeaconRadio``: its ``PhoneCondition``'s path-loss exponent, receiver
/// offset and shadowing, the shadowing correlated in time (a first-order autoregressive process per
/// beacon with the condition's fading time: a body blocking a beacon blocks it for seconds).
/// With no fading time the readings are those of ``BeaconRadio/readings(at:client:tick:)``.
public struct PhoneRadio: Sendable {
    public let radio: BeaconRadio
    public let condition: PhoneCondition
    let client: Int
    /// Seconds per tick.
    let tick: Double
    let model: LogDistanceModel
    let sigma: Double
    /// Per region: the standardized shadowing deviation and the tick it was last brought to.
    private var fading: [Double]
    private var fadedAt: [Int]

    public init(radio: BeaconRadio, condition: PhoneCondition, client: Int, tick: Double) {
        self.radio = radio
        self.condition = condition
        self.client = client
        self.tick = tick
        let venue = radio.topology.radio
        model = LogDistanceModel(exponent: condition.exponent ?? venue.pathLossExponent)
        sigma = condition.shadowing ?? radio.shadowing
        fading = Array(repeating: 0, count: radio.topology.regions.count)
        fadedAt = Array(repeating: -1, count: radio.topology.regions.count)
    }

    /// The beacons detected from `point` at tick `tick` (ticks only move forward), with their readings.
    public mutating func readings(at point: VenuePoint, tick: Int) -> [(region: Int, rssi: Int)] {
        let radio = self.radio
        let client = UInt64(client)
        let fadingTime = condition.fadingTime
        let step = self.tick
        return radio.readings(at: point, model: model, offset: condition.receiverOffset) { region in
            let fresh = radio.noise.normal(client, UInt64(tick), UInt64(region))
            let last = fadedAt[region]
            if fadingTime <= 0 || last < 0 {
                fading[region] = fresh
            } else if last < tick {
                let keep = exp(-Double(tick - last) * step / fadingTime)
                fading[region] = keep * fading[region] + (1 - keep * keep).squareRoot() * fresh
            }
            fadedAt[region] = tick
            return sigma * fading[region]
        }
    }

    /// Metres within which this phone's mean reading of region `region`'s beacon reaches the
    /// venue's sensitivity (same level): its true detection range.
    public func detectionRange(of region: Int) -> Double {
        let margin = radio.powers[region] + condition.receiverOffset - radio.topology.radio.sensitivity
        return Foundation.pow(10, margin / (10 * model.exponent))
    }
}
