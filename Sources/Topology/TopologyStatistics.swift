/// Counts and sizes of a venue, as `beaconfleet topology check` prints them.
public struct TopologyStatistics: Sendable, Hashable {
    public var levels: Int
    public var regions: Int
    /// Regions with a position (graph nodes).
    public var placedRegions: Int
    public var pinnedRegions: Int
    /// Regions whose identity lacks a minor (UUID only, or UUID + major).
    public var wildcardRegions: Int
    public var waypoints: Int
    public var gateways: Int
    public var links: Int
    /// Links by kind (`walk`, `stairs`, …).
    public var linksByKind: [LinkKind: Int]
    /// Metres of walkable links, all added up.
    public var walkableLength: Double
    public var maximumRadius: Double
    /// Per level id: regions placed on it.
    public var regionsPerLevel: [String: Int]
}

extension Topology {
    /// Counts and sizes of this venue.
    public var statistics: TopologyStatistics {
        var byKind: [LinkKind: Int] = [:]
        var length = 0.0
        for link in links {
            byKind[link.kind, default: 0] += 1
            length += link.distance
        }
        var perLevel: [String: Int] = [:]
        for level in levels { perLevel[level.id] = 0 }
        for region in regions { if let level = region.position?.level { perLevel[level, default: 0] += 1 } }
        return TopologyStatistics(
            levels: levels.count, regions: regions.count,
            placedRegions: regions.filter { $0.position != nil }.count,
            pinnedRegions: pinnedRegions.count,
            wildcardRegions: regions.filter(\.identity.isWildcard).count,
            waypoints: waypoints.count, gateways: gateways.count, links: links.count,
            linksByKind: byKind, walkableLength: length, maximumRadius: maximumRadius, regionsPerLevel: perLevel
        )
    }
}
