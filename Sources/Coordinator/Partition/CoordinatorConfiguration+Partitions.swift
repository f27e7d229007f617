import MQTT
import WireProtocol

extension CoordinatorConfiguration {
    /// Makes this coordinator a member of partitioned coordinators: the will becomes the member's
    /// `offline` status (`P/v1/coordinators/{member}/status`) instead of the shared coordinator
    /// status, which several members would otherwise overwrite each other's will on.
    public mutating func partition(_ partitions: PartitionConfiguration) throws {
        self.partitions = partitions
        guard let member = Identifier(validating: partitions.member) else {
            throw CoordinatorError("member id \(partitions.member) is not an identifier")
        }
        mqtt.will = LastWill(
            topic: topics.coordinatorMember(member),
            payload: try WireCoding.encode(
                CoordinatorMemberStatus(member: partitions.member, state: .offline, heartbeat: partitions.heartbeat)),
            qos: .atLeastOnce, retain: true)
    }
}
