/// The broker a coordinator or an agent is connected to and the MQTT version it negotiated, as its
/// status message carries it (`"mqtt": {"protocol": "3.1.1", "broker": "mqtt://n2:1883"}`).
public struct BrokerConnection: Codable, Sendable, Equatable {
    /// `5` or `3.1.1`: MQTT 3.1.1 when the broker refused MQTT 5 (NATS) or the process was told to speak it.
    public var `protocol`: String
    /// The broker's URL, password hidden: with a list of brokers, the one in use.
    public var broker: String

    public init(protocol: String, broker: String) {
        self.protocol = `protocol`
        self.broker = broker
    }
}
