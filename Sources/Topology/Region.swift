public import BeaconKit
public import WireProtocol

/// A monitored region: a beacon identity, where it is, and how far from its centre a phone
/// counts as inside.
///
/// The region's `id` is also its CoreLocation identifier: stable across plans, restarts and
/// topology revisions.
public struct Region: Sendable, Hashable {
    /// The topology id, used as the iOS region identifier.
    public var id: String
    public var identity: RegionIdentity
    /// Where the region's beacon is; nil for a wildcard region that has no single place (for
    /// example the venue-wide UUID-only region), which must then be pinned.
    public var position: VenuePoint?
    /// The level of an unplaced per-level region (equal to `position?.level` when placed).
    public var level: String?
    /// Metres from the centre within which a phone is inside the region.
    public var radius: Double
    /// The beacon's measured power at 1 m, dBm (`regions.csv`'s `power`), when declared: what its
    /// detection range follows from (see ``RadioEnvironment``).
    public var measuredPower: Int8?
    /// Free-form tags; `pinned` puts the region in every client's set.
    public var tags: [String]
    public var source: SourceLocation

    public init(
        id: String, identity: RegionIdentity, position: VenuePoint?, level: String? = nil, radius: Double, measuredPower: Int8? = nil,
        tags: [String] = [], source: SourceLocation
    ) {
        self.id = id
        self.identity = identity
        self.position = position
        self.level = position?.level ?? level
        self.radius = radius
        self.measuredPower = measuredPower
        self.tags = tags
        self.source = source
    }

    /// The region as a `regions` message names it: its id and beacon identity.
    public var reference: RegionRef {
        RegionRef(id: id, uuid: identity.uuidString, major: identity.major, minor: identity.minor)
    }

    /// Whether every client monitors this region, whatever its position.
    public var isPinned: Bool { tags.contains(Region.pinnedTag) }

    /// The tag that pins a region.
    public static let pinnedTag = "pinned"
}
