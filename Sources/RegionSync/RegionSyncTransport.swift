/// The MQTT operations a wake needs, so that an app can bring its own client
/// (`RegionSyncMQTT` has one over this package's `MQTT`).
///
/// Topics come from `WireProtocol.Topics`; payloads are the contract's JSON bytes.
public protocol RegionSyncTransport: Sendable {
    /// Connects (a fresh connection every wake: sockets do not survive suspension) and returns once connected.
    func connect() async throws(RegionSyncError)
    /// Subscribes to `topic` at QoS 1 and returns the payloads received on it, the retained
    /// message first. The stream is read by one consumer and ends at ``disconnect()``.
    func subscribe(_ topic: String) async throws(RegionSyncError) -> AsyncStream<[UInt8]>
    /// Publishes `payload` on `topic` at QoS 1, not retained; returns once the broker has it.
    func publish(_ payload: [UInt8], to topic: String) async throws(RegionSyncError)
    /// Publishes `payload` on `topic` at QoS 0, not retained, and returns once it is handed to the
    /// connection (``RegionSyncSession/Options/reportCopy``), best on a second connection of the
    /// wake: a NATS node reads one connection's packets in order, so a stalled QoS 1 publish holds
    /// up a copy sent after it on the same connection. The session sends it beside the QoS 1
    /// ``publish(_:to:)``, without order between them. The default does nothing: a transport
    /// without QoS 0 sends no copies.
    func publishCopy(_ payload: [UInt8], to topic: String) async throws(RegionSyncError)
    /// Disconnects cleanly.
    func disconnect() async
}

extension RegionSyncTransport {
    public func publishCopy(_ payload: [UInt8], to topic: String) async throws(RegionSyncError) {}
}
