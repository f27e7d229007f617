/// Why bytes are not a valid MQTT 3.1.1 packet, or a packet cannot be written.
public enum MQTTPacketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Packet type 0 or 15, which MQTT reserves.
    case reservedPacketType(UInt8)
    /// A packet type of MQTT 3.1.1 this codec does not handle (QoS 2's `PUBREC`/`PUBREL`/`PUBCOMP`, `UNSUBSCRIBE`, `UNSUBACK`).
    case unsupportedPacketType(UInt8)
    /// The low four bits of the first byte are not what the packet type requires.
    case invalidFlags(packet: String, flags: UInt8)
    /// The remaining length runs past four bytes.
    case malformedRemainingLength
    /// The packet is longer than the receiver accepts (or than MQTT can say).
    case packetTooLarge(length: Int, limit: Int)
    /// The packet ends inside a field.
    case truncated(packet: String, field: String)
    /// Bytes are left after the packet's last field.
    case trailingBytes(packet: String, count: Int)
    /// A string is not UTF-8, or holds U+0000.
    case invalidString(packet: String, field: String)
    /// A string or binary field is longer than the 65,535 bytes its length prefix can say.
    case fieldTooLong(packet: String, field: String, length: Int)
    /// A QoS of 3 (or a QoS byte with reserved bits set).
    case invalidQoS(packet: String, value: UInt8)
    /// A `CONNECT` for another protocol or protocol level than MQTT 3.1.1 (`MQTT`, level 4).
    case unsupportedProtocol(name: String, level: UInt8)
    /// A `CONNECT`'s flags contradict each other or set the reserved bit.
    case invalidConnectFlags(UInt8)
    /// A `CONNACK`'s acknowledge flags set reserved bits.
    case invalidAcknowledgeFlags(UInt8)
    /// A `CONNACK` return code above 5, or a `SUBACK` return code other than 0, 1, 2 or 0x80.
    case invalidReturnCode(packet: String, value: UInt8)
    /// A packet identifier of 0 (or a missing one where the QoS needs it).
    case invalidPacketIdentifier(packet: String)
    /// A `DUP` flag on a QoS 0 `PUBLISH`.
    case duplicateAtQoS0
    /// A `SUBSCRIBE` without filters, or a `SUBACK` without return codes.
    case empty(packet: String)
    /// A topic that is empty or holds a wildcard (`+`, `#`), where a topic name is required.
    case invalidTopic(String)
    /// A topic filter that is empty or uses `+` or `#` where MQTT does not allow them.
    case invalidTopicFilter(String)

    /// What is wrong, naming the packet and the field.
    public var description: String {
        switch self {
        case .reservedPacketType(let type): "reserved packet type \(type)"
        case .unsupportedPacketType(let type): "packet type \(type) is not supported by this client (MQTT 3.1.1 at QoS 0 and 1)"
        case .invalidFlags(let packet, let flags): "\(packet) with invalid flags 0x\(String(flags, radix: 16))"
        case .malformedRemainingLength: "malformed remaining length (more than four bytes)"
        case .packetTooLarge(let length, let limit): "packet of \(length) bytes exceeds the limit of \(limit)"
        case .truncated(let packet, let field): "\(packet) ends inside its \(field)"
        case .trailingBytes(let packet, let count): "\(packet) has \(count) unexpected bytes after its last field"
        case .invalidString(let packet, let field): "\(packet) \(field) is not valid UTF-8 without U+0000"
        case .fieldTooLong(let packet, let field, let length): "\(packet) \(field) of \(length) bytes is longer than 65,535"
        case .invalidQoS(let packet, let value): "\(packet) with invalid QoS \(value)"
        case .unsupportedProtocol(let name, let level): "CONNECT for protocol '\(name)' level \(level), not MQTT 3.1.1 ('MQTT' level 4)"
        case .invalidConnectFlags(let flags): "CONNECT with invalid flags 0x\(String(flags, radix: 16))"
        case .invalidAcknowledgeFlags(let flags): "CONNACK with invalid acknowledge flags 0x\(String(flags, radix: 16))"
        case .invalidReturnCode(let packet, let value): "\(packet) with invalid return code 0x\(String(value, radix: 16))"
        case .invalidPacketIdentifier(let packet): "\(packet) without a non-zero packet identifier"
        case .duplicateAtQoS0: "PUBLISH at QoS 0 with the DUP flag"
        case .empty(let packet): "\(packet) without any topic filter or return code"
        case .invalidTopic(let topic): "invalid topic '\(topic)' (empty, or holding a wildcard)"
        case .invalidTopicFilter(let filter): "invalid topic filter '\(filter)'"
        }
    }
}
