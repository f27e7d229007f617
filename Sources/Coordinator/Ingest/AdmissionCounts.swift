/// One gateway's sightings that did not make a client, by reason (the `reason` label of
/// `beaconfleet_coordinator_unadmitted_sightings_total`).
public struct AdmissionCounts: Sendable, Equatable {
    /// Region beacons (`regions.csv`'s identities).
    public var region: UInt64 = 0
    /// The venue's other beacons: a `venue` rule of `clients.csv`, or a region's UUID.
    public var venue: UInt64 = 0
    /// Identities no rule admits (neighbours' beacons, other people's devices).
    public var unlisted: UInt64 = 0

    public init(region: UInt64 = 0, venue: UInt64 = 0, unlisted: UInt64 = 0) {
        self.region = region
        self.venue = venue
        self.unlisted = unlisted
    }

    /// Adds `other`'s counts.
    mutating func add(_ other: AdmissionCounts) {
        region += other.region
        venue += other.venue
        unlisted += other.unlisted
    }

    /// The counts by reason label.
    var byReason: [(reason: String, count: UInt64)] { [("region", region), ("venue", venue), ("unlisted", unlisted)] }
}
