public import Foundation

/// `P/v1/coordinators/{member}/status` (retained, QoS 1): one partitioned coordinator's presence
/// and what it owns, for observers (the live map, `beaconfleet watch`), published when that
/// changes; also its last will (`offline`). Members do not read it: membership and ownership are
/// decided in etcd. See docs/wire.md and docs/partitioning.md.
public struct CoordinatorMemberStatus: VersionedPayload, Equatable {
    public var v: Int = 1
    /// The member id (unique per process; also the topic level).
    public var member: String
    public var state: CoordinatorStatus.State
    /// The topology (venue) name this member serves.
    public var venue: String?
    /// The partitions this member owns now.
    public var partitions: [String]?
    /// When it was published.
    public var time: Date?

    public init(member: String, state: CoordinatorStatus.State, venue: String? = nil, partitions: [String]? = nil, time: Date? = nil) {
        self.member = member
        self.state = state
        self.venue = venue
        self.partitions = partitions
        self.time = time
    }
}
