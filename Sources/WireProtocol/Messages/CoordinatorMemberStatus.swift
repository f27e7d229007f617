public import Foundation

/// `P/v1/coordinators/{member}/status` (retained, QoS 1): one partitioned coordinator's presence,
/// re-published every ``heartbeat`` seconds with a fresh ``time``, and its last will (`offline`).
///
/// A NATS cluster publishes no will when the node a member is connected to dies, so a stale
/// retained `online` may stay: members count one as live while its heartbeat is younger than
/// their timeout (a few heartbeats), not by the will alone. See docs/wire.md and docs/coordinator.md.
public struct CoordinatorMemberStatus: VersionedPayload, Equatable {
    public var v: Int = 1
    /// The member id (unique per process; also the topic level).
    public var member: String
    public var state: CoordinatorStatus.State
    /// The topology (venue) name this member serves; owners are chosen among members of one venue.
    public var venue: String?
    /// The partitions this member owns now (informational: every member computes owners itself).
    public var partitions: [String]?
    /// Seconds between heartbeats.
    public var heartbeat: Double?
    /// When this heartbeat was sent.
    public var time: Date?

    public init(
        member: String, state: CoordinatorStatus.State, venue: String? = nil, partitions: [String]? = nil, heartbeat: Double? = nil,
        time: Date? = nil
    ) {
        self.member = member
        self.state = state
        self.venue = venue
        self.partitions = partitions
        self.heartbeat = heartbeat
        self.time = time
    }
}
