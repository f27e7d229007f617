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

    /// A radio on `topology`; `shadowing` defaults to the venue's (``RadioEnvironment/shadowing``).
    public init(topology: Topology, seed: UInt64, shadowing: Double? = nil, floorAttenuation: Double = 15) {
        self.topology = topology
        self.shadowing = shadowing ?? topology.radio.shadowing
        self.floorAttenuation = floorAttenuation
        self.noise = CounterNoise(seed: seed)
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

    /// The beacons detected from `point` at `tick` by `client`, with their readings, in region order.
    public func readings(at point: VenuePoint, client: Int, tick: Int) -> [(region: Int, rssi: Int)] {
        var heard: [(region: Int, rssi: Int)] = []
        let radio = topology.radio
        let model = radio.distanceModel
        let order = levelOrder[point.level] ?? 0
        for (level, regions) in placed {
            let floors = abs((levelOrder[level] ?? 0) - order)
            if floors > 1 { continue }
            for region in regions {
                let dx = region.x - point.x
                let dy = region.y - point.y
                let distance = Swift.max((dx * dx + dy * dy + 1.69).squareRoot(), 0.1)  // beacon 1.3 m above the phone
                let power = Double(topology.regions[region.region].measuredPower ?? radio.measuredPower)
                let mean = model.expectedRSSI(atDistance: distance, referencePower: power) - Double(floors) * floorAttenuation
                let rssi = (mean + shadowing * noise.normal(UInt64(client), UInt64(tick), UInt64(region.region))).rounded()
                if rssi >= radio.sensitivity { heard.append((region.region, Int(Swift.max(rssi, -127)))) }
            }
        }
        return heard.sorted { $0.region < $1.region }
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
