public import BeaconKit
public import Topology
public import WireProtocol

extension VenueIndex {
    /// Indexes a loaded topology: region indices equal the topology's, so plans translate 1:1.
    public convenience init(topology: Topology) {
        let levels = topology.levels.map(\.id)
        var levelIndex: [String: Int32] = [:]
        for (i, level) in levels.enumerated() { levelIndex[level] = Int32(i) }
        let regions = topology.regions.map { region -> VenueRegion in
            let identity = region.identity
            let ref = RegionRef(id: region.id, uuid: identity.uuidString, major: identity.major, minor: identity.minor)
            var beacon: BeaconIdentity?
            if let major = identity.major, let minor = identity.minor {
                beacon = BeaconIdentity(uuid: identity.uuidString, major: major, minor: minor)
            }
            let point = region.position.flatMap { p in levelIndex[p.level].map { LevelPoint(x: p.x, y: p.y, level: $0) } }
            return VenueRegion(id: region.id, ref: ref, beacon: beacon, point: point, radius: region.radius, pinned: region.isPinned)
        }
        var gateways: [String: LevelPoint] = [:]
        for gateway in topology.gateways {
            if let level = levelIndex[gateway.position.level] {
                gateways[gateway.id] = LevelPoint(x: gateway.position.x, y: gateway.position.y, level: level)
            }
        }
        self.init(name: topology.name, revision: topology.revision, levels: levels, regions: regions, gateways: gateways)
    }
}
