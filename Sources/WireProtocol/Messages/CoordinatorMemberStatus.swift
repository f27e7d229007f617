public import Foundation

/// `P/v1/coordinators/{member}/status` (retained, QoS 1): one partitioned coordinator's presence
/// and what it owns, for observers (the live map, `beaconfleet watch`), published when that
/// changes and, at QoS 0 not retained, when the member is back from a broker failover it rode
/// out; also its last will (`offline`). Membership and ownership are decided in etcd; the other
/// members read it only to relay the reports of the partitions it names that went unanswered.
/// See docs/wire.md and docs/partitioning.md.
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
