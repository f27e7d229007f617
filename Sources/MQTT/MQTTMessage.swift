/// A message received on a subscribed topic. Topic and payload are copies owned by the message.
public struct MQTTMessage: Sendable, Hashable {
    /// The topic the message was published on (never a filter).
    public var topic: String
    /// The payload bytes, possibly empty.
    public var payload: [UInt8]
    /// The QoS the message was delivered with (the lower of the publish and the subscription QoS).
    public var qos: QoS
    /// Whether the broker delivered it as a retained message (sent when the subscription was made).
    public var retain: Bool
    /// MQTT 5 user properties, in the order they were sent; always empty under MQTT 3.1.1.
    public var userProperties: [MQTTUserProperty]

    /// The payload decoded as UTF-8 (invalid sequences are repaired), for logs and tests.
    public var payloadString: String { String(decoding: payload, as: UTF8.self) }
}
