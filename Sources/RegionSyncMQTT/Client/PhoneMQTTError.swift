/// Why the phone's MQTT client could not do what it was asked, naming the broker and the step.
///
/// At the ``PhoneMQTTTransport`` boundary each becomes `RegionSyncError.transport` with this description.
public enum PhoneMQTTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broker URL cannot be used.
    case invalidURL(String, reason: String)
    /// A setting is out of range (a keep-alive over 65,535 s, a client id over 65,535 bytes, …).
    case invalidConfiguration(String)
    /// The venue CA or the client identity is not a usable certificate (PEM or DER) or PKCS #12 bundle.
    case invalidCertificate(String)
    /// The caller asked for something this client does not do (a QoS 2 publish, a topic with a wildcard, connecting twice).
    case invalidRequest(String)
    /// No TCP connection: refused, unreachable, name not found.
    case connectionFailed(endpoint: String, reason: String)
    /// The TLS handshake failed: the broker's certificate is not signed by the trusted CA, does not name the host, …
    case tlsFailed(endpoint: String, reason: String)
    /// The server did not accept the WebSocket upgrade (or the `mqtt` subprotocol).
    case webSocketRefused(endpoint: String, reason: String)
    /// The broker answered `CONNECT` with a refusal.
    case connectionRefused(endpoint: String, MQTTPacket.ConnectReturnCode)
    /// The broker refused a subscription (`SUBACK` 0x80), for example because its ACL denies the topic.
    case subscriptionRefused(endpoint: String, filter: String)
    /// The deadline passed before the step finished.
    case timedOut(step: String, after: Duration)
    /// The task waiting for the step was cancelled (the wake's own deadline, usually).
    case cancelled(step: String)
    /// The connection ended: closed by the broker, lost, or closed by this client.
    case connectionClosed(endpoint: String, reason: String)
    /// The broker sent bytes that are not MQTT 3.1.1.
    case malformedPacket(endpoint: String, MQTTPacketError)
    /// The broker sent a packet that makes no sense here (a `SUBACK` nobody asked for, a QoS 2 delivery, …).
    case protocolViolation(endpoint: String, String)
    /// The step needs a connection and there is none; `cause` is why the last one ended, if it did.
    indirect case notConnected(step: String, cause: PhoneMQTTError?)

    /// The cause, naming the broker and the step.
    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): "invalid broker URL '\(url)': \(reason)"
        case .invalidConfiguration(let text): "invalid MQTT configuration: \(text)"
        case .invalidCertificate(let text): "invalid certificate: \(text)"
        case .invalidRequest(let text): "invalid request: \(text)"
        case .connectionFailed(let endpoint, let reason): "cannot connect to \(endpoint): \(reason)"
        case .tlsFailed(let endpoint, let reason): "TLS handshake with \(endpoint) failed: \(reason)"
        case .webSocketRefused(let endpoint, let reason): "WebSocket upgrade with \(endpoint) refused: \(reason)"
        case .connectionRefused(let endpoint, let code):
            "\(endpoint) refused the connection: \(code) (CONNACK return code \(code.rawValue))"
        case .subscriptionRefused(let endpoint, let filter): "\(endpoint) refused the subscription to \(filter) (SUBACK 0x80)"
        case .timedOut(let step, let after): "timed out after \(Self.format(after)) waiting for \(step)"
        case .cancelled(let step): "cancelled while waiting for \(step)"
        case .connectionClosed(let endpoint, let reason): "connection to \(endpoint) closed: \(reason)"
        case .malformedPacket(let endpoint, let error): "malformed packet from \(endpoint): \(error)"
        case .protocolViolation(let endpoint, let text): "protocol violation by \(endpoint): \(text)"
        case .notConnected(let step, let cause): "cannot \(step): not connected" + (cause.map { " (\($0))" } ?? "")
        }
    }

    /// `250 ms`, `1.5 s`.
    static func format(_ duration: Duration) -> String {
        let milliseconds = Int((Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15).rounded())
        return milliseconds < 1000 ? "\(milliseconds) ms" : "\(Double(milliseconds) / 1000) s"
    }
}
