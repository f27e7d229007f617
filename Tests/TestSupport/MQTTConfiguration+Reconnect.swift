public import MQTT

extension MQTTConfiguration {
    /// The same configuration retrying a lost connection after `first`, the delay doubling up to
    /// `most`: tests that cut the connection want it back sooner (or later) than the defaults.
    public func reconnecting(after first: Duration, atMost most: Duration) -> MQTTConfiguration {
        var configuration = self
        configuration.reconnectDelayMin = first
        configuration.reconnectDelayMax = most
        return configuration
    }
}
