public import BeaconKit

/// A beacon region to monitor: the identifier it is registered under with iOS and the beacons
/// it matches.
public struct BeaconRegion: Hashable, Sendable, CustomStringConvertible {
    /// The identifier iOS keys the region by (`CLRegion.identifier`, a `CLMonitor` identifier).
    public var identifier: String
    /// The beacons it matches.
    public var identity: RegionIdentity

    public init(identifier: String, identity: RegionIdentity) {
        self.identifier = identifier
        self.identity = identity
    }

    public var description: String { "\(identifier)=\(identity)" }
}

/// A region iOS holds now, as `monitoredRegions` (or a `CLMonitor`'s records) lists it: beacon
/// regions with their identity, anything else (the app's circular geofences) without one.
public struct MonitoredRegion: Hashable, Sendable {
    /// The identifier the region was registered under.
    public var identifier: String
    /// The beacons it matches; `nil` for a region that is not a beacon region.
    public var identity: RegionIdentity?
    /// `CLMonitor` gave the condition up (`.unmonitored`): it is listed but watches nothing.
    public var isUnmonitored: Bool

    public init(identifier: String, identity: RegionIdentity?, isUnmonitored: Bool = false) {
        self.identifier = identifier
        self.identity = identity
        self.isUnmonitored = isUnmonitored
    }

    /// A beacon region as iOS holds it.
    public init(_ region: BeaconRegion) {
        self.init(identifier: region.identifier, identity: region.identity)
    }
}
