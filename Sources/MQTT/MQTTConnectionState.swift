/// Where an ``MQTTClient``'s connection stands. Observe it through ``MQTTClient/connectionStates``.
public enum MQTTConnectionState: Sendable, Equatable, CustomStringConvertible {
    /// Created; ``MQTTClient/connect()`` has not been called yet.
    case idle
    /// A connection attempt is under way (first attempt or an automatic reconnect).
    case connecting
    /// The broker accepted the connection (CONNACK success).
    case connected
    /// The connection was refused or lost; the client retries with bounded exponential backoff.
    case disconnected(MQTTError)
    /// ``MQTTClient/disconnect()`` was called; final.
    case closed

    /// Whether the state is ``connected``.
    public var isConnected: Bool { self == .connected }

    public var description: String {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .connected: "connected"
        case .disconnected(let reason): "disconnected (\(reason))"
        case .closed: "closed"
        }
    }
}
