/// MQTT delivery guarantee of a publish or a subscription.
public enum QoS: Int32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Fire and forget: delivered at most once, lost if the connection drops.
    case atMostOnce = 0
    /// Acknowledged with PUBACK: delivered at least once, possibly duplicated.
    case atLeastOnce = 1
    /// Four-way handshake ending in PUBCOMP: delivered exactly once.
    case exactlyOnce = 2

    public var description: String { "QoS \(rawValue)" }
}
