/// Everything that can go wrong in the MQTT library. Every message names the URL, file, topic,
/// filter or broker it is about.
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broker URL could not be parsed; `reason` says which part is wrong.
    case invalidURL(String, reason: String)
    /// A configuration field has an unusable value.
    case invalidConfiguration(field: String, reason: String)
    /// A TLS file (CA, certificate or key) is missing or unreadable; `role` is "CA file", "certificate file" or "key file".
    case tlsFile(role: String, path: String, reason: String)
    /// The TLS handshake with `broker` failed (bad CA, wrong host name, rejected client certificate…).
    case tlsHandshakeFailed(broker: String, detail: String)
    /// The broker refused the user name or password.
    case badCredentials(broker: String, user: String?)
    /// The broker refused the connection: the client is not authorised to connect.
    case notAuthorized(broker: String, user: String?)
    /// The broker refused the connection for another reason (reason code and text from CONNACK).
    case connectionRefused(broker: String, code: Int, reason: String)
    /// The connection to `broker` could not be made or was lost; the client retries by itself.
    case connectionLost(broker: String, reason: String)
    /// A QoS 0 publish was attempted while disconnected; QoS 0 messages are not queued offline.
    case notConnected(topic: String)
    /// The outgoing queue holds `limit` unacknowledged messages already; the publish was not accepted.
    case queueFull(topic: String, limit: Int)
    /// The topic is not a valid publish topic (empty, wildcards, bad UTF-8, too long).
    case invalidTopic(String, reason: String)
    /// The subscription filter is not a valid filter.
    case invalidFilter(String, reason: String)
    /// The payload is larger than MQTT or the broker allows.
    case payloadTooLarge(topic: String, size: Int)
    /// The broker refused the subscription (for example an ACL denies it).
    case subscriptionRefused(filter: String, reason: String)
    /// The broker acknowledged the publish with a failure reason code (MQTT 5, for example not authorised).
    case publishRejected(topic: String, reason: String)
    /// The client was disconnected with ``MQTTClient/disconnect()``; nothing more can be sent.
    case closed
    /// An unexpected libmosquitto error.
    case library(operation: String, code: Int, message: String)

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            "invalid broker URL '\(url)': \(reason) (expected mqtt://[user:pass@]host[:port] or mqtts://…)"
        case .invalidConfiguration(let field, let reason):
            "invalid MQTT configuration: \(field) \(reason)"
        case .tlsFile(let role, let path, let reason):
            "TLS \(role) \(path): \(reason)"
        case .tlsHandshakeFailed(let broker, let detail):
            "TLS handshake with \(broker) failed: \(detail)"
        case .badCredentials(let broker, let user):
            "connection refused by \(broker): bad user name or password\(user.map { " (user '\($0)')" } ?? " (no user name given)")"
        case .notAuthorized(let broker, let user):
            "connection refused by \(broker): not authorised\(user.map { " (user '\($0)')" } ?? " (anonymous; the broker may require a user name and password)")"
        case .connectionRefused(let broker, let code, let reason):
            "connection refused by \(broker): \(reason) (reason code \(code))"
        case .connectionLost(let broker, let reason):
            "no connection to \(broker): \(reason)"
        case .notConnected(let topic):
            "cannot publish to '\(topic)' at QoS 0 while disconnected (QoS 0 is not queued offline)"
        case .queueFull(let topic, let limit):
            "outgoing queue full: \(limit) messages await the broker; publish to '\(topic)' refused"
        case .invalidTopic(let topic, let reason):
            "invalid topic '\(topic)': \(reason)"
        case .invalidFilter(let filter, let reason):
            "invalid subscription filter '\(filter)': \(reason)"
        case .payloadTooLarge(let topic, let size):
            "payload of \(size) bytes for '\(topic)' is larger than the broker accepts"
        case .subscriptionRefused(let filter, let reason):
            "subscription to '\(filter)' refused: \(reason)"
        case .publishRejected(let topic, let reason):
            "publish to '\(topic)' rejected by the broker: \(reason)"
        case .closed:
            "the MQTT client is closed (disconnect() was called)"
        case .library(let operation, let code, let message):
            "libmosquitto \(operation) failed: \(message) (error \(code))"
        }
    }

    /// Whether the error is a refusal that retrying with the same configuration cannot fix
    /// (bad credentials, not authorised, TLS failure).
    public var isConfigurationProblem: Bool {
        switch self {
        case .badCredentials, .notAuthorized, .tlsHandshakeFailed, .tlsFile, .invalidURL, .invalidConfiguration: true
        case .connectionRefused(_, let code, _): code == 132 || code == 133 || code == 1 || code == 2
        default: false
        }
    }
}
