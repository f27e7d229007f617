public import Etcd
import Foundation
import WireProtocol

/// How a partitioned coordinator takes part in membership (`beaconfleet coordinator --coordination etcd://…`).
public struct PartitionConfiguration: Sendable {
    /// This member's id: unique per process, an identifier without `.` (see ``Topics/isValidMember(_:)``).
    public var member: String
    /// Level groups (`0,1|2`); `nil`: the venue is one partition. See ``PartitionMap``.
    public var spec: String?
    /// Where membership and ownership are decided (`--coordination`).
    public var coordination: EtcdEndpoints
    /// The lease's TTL in seconds: how long after its last renewal a member that died (or lost
    /// etcd) still holds its partitions. etcd grants at least about 2 s with its default election timeout.
    public var leaseTTL: Int64 = 3
    /// How often the lease is renewed: a third of ``leaseTTL`` (`--lease-ttl` sets both), so two
    /// renewals can be late before the self-fence.
    public var renewal: Duration = .seconds(1)
    /// A member serves only until this long before its lease could expire, counted from the sending
    /// of its last answered renewal (self-fencing): it has stopped before another can claim its partitions.
    public var selfFenceMargin: Duration = .milliseconds(500)

    /// Throws when `member` cannot be a topic level on every broker.
    public init(member: String, spec: String? = nil, coordination: EtcdEndpoints) throws(PartitionSpecError) {
        guard Topics.isValidMember(member) else {
            throw PartitionSpecError(description: "member id \(member): expected 1-64 of A-Z a-z 0-9 _ - (no '.' or space)")
        }
        self.member = member
        self.spec = spec
        self.coordination = coordination
    }

    /// A member id unique per process: host name, process id and a random suffix.
    public static func randomMember() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        let clean = String(host.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" }.prefix(24))
        return "\(clean.isEmpty ? "host" : clean)-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...0xFFFF))"
    }

    /// The election in etcd of the members of `map`'s venue under `topicPrefix`: keys under
    /// `/beaconfleet/{prefix}/{venue}/`, partitions won by rendezvous hashing (``Rendezvous``).
    func election(map: PartitionMap, topicPrefix: String) -> EtcdElection<PartitionOwnership>.Configuration {
        var election = EtcdElection<PartitionOwnership>.Configuration(
            member: member, root: "/beaconfleet/\(topicPrefix)/\(map.venue)/", partitions: map.names
        ) { Rendezvous.owner(of: $0, among: $1) }
        election.leaseTTL = leaseTTL
        election.renewal = renewal
        election.selfFenceMargin = selfFenceMargin
        return election
    }
}
