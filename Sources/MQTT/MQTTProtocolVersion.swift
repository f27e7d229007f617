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

    /// The version for a command-line value: `5`, `3.1.1` (also `311`); `nil` for anything else
    /// (`auto` is ``MQTTConfiguration/fallsBackToV311``, not a version).
    public init?(commandLine text: String) {
        switch text.lowercased() {
        case "5", "5.0", "v5": self = .v5
        case "3.1.1", "311", "v311": self = .v311
        default: return nil
        }
    }

    /// `5` or `3.1.1`, as `--mqtt-version` takes it and status messages carry it.
    public var number: String {
        switch self {
        case .v5: "5"
        case .v311: "3.1.1"
        }
    }

    public var description: String {
        switch self {
        case .v5: "MQTT 5"
        case .v311: "MQTT 3.1.1"
        }
    }
}
