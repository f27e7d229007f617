/// The MQTT protocol revision spoken to the broker.
public enum MQTTProtocolVersion: Sendable, Hashable, CustomStringConvertible {
    /// MQTT 5 (the default): reason codes, user properties, session expiry.
    case v5
    /// MQTT 3.1.1, for brokers that do not speak MQTT 5.
    case v311

    /// The protocol level libmosquitto expects in `MOSQ_OPT_PROTOCOL_VERSION`.
    var protocolLevel: Int32 {
        switch self {
        case .v5: 5
        case .v311: 4
        }
    }

    public var description: String {
        switch self {
        case .v5: "MQTT 5"
        case .v311: "MQTT 3.1.1"
        }
    }
}
