/// The message the broker publishes on the client's behalf when the connection ends without a clean
/// DISCONNECT (crash, kill, network loss, keep-alive timeout).
public struct LastWill: Sendable, Hashable {
    /// The topic the will is published on; no wildcards.
    public var topic: String
    /// The will's payload bytes.
    public var payload: [UInt8]
    /// The QoS the broker publishes the will with.
    public var qos: QoS
    /// Whether the broker keeps the will as the topic's retained message.
    public var retain: Bool

    /// A last will published on `topic` with `payload`.
    public init(topic: String, payload: [UInt8], qos: QoS = .atLeastOnce, retain: Bool = true) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}
