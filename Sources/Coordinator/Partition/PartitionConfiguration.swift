public import Foundation
import WireProtocol

/// How a partitioned coordinator takes part in membership (`beaconfleet coordinator --partitioned`).
public struct PartitionConfiguration: Sendable {
    /// This member's id: unique per process, an identifier without `.` (see ``Topics/isValidMember(_:)``).
    public var member: String
    /// Level groups (`0,1|2`); `nil`: the venue is one partition. See ``PartitionMap``.
    public var spec: String?
    /// Seconds between heartbeats (the member status re-published with a fresh time).
    public var heartbeat: TimeInterval = 1
    /// A member not heard for this long is gone (a few heartbeats). Longer than a broker
    /// failover usually takes, so a member whose NATS node died reconnects to another before the
    /// others give its partitions away; a member that crashes publishes its will at once anyway.
    public var timeout: TimeInterval = 6
    /// After a membership change, a partition this member gains is neither read nor published for
    /// this long, so the previous owner's last sets (and their versions) reach it first.
    public var grace: TimeInterval = 1.5
    /// A fenced partition (another member published a newer version for one of its clients) stays
    /// silent until membership changes, or at most this long.
    public var fenceHold: TimeInterval = 10

    /// Throws when `member` cannot be a topic level on every broker.
    public init(member: String, spec: String? = nil) throws(PartitionSpecError) {
        guard Topics.isValidMember(member) else {
            throw PartitionSpecError(description: "member id \(member): expected 1-64 of A-Z a-z 0-9 _ - (no '.' or space)")
        }
        self.member = member
        self.spec = spec
    }

    /// A member id unique per process: host name, process id and a random suffix.
    public static func randomMember() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        let clean = String(host.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" }.prefix(24))
        return "\(clean.isEmpty ? "host" : clean)-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...0xFFFF))"
    }
}
