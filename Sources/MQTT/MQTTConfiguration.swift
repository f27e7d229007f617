/// How an ``MQTTClient`` connects and how much it buffers.
public struct MQTTConfiguration: Sendable {
    /// The broker, with credentials if any.
    public var url: BrokerURL
    /// The MQTT client identifier; must be unique per broker (a second connection with the same id
    /// takes over and the first one is disconnected).
    public var clientID: String
    /// Further brokers (the nodes of a cluster, a standby), tried in turn after ``url`` when a
    /// connection attempt fails; see ``brokers``. Each may carry its own credentials; TLS files are shared.
    public var failoverURLs: [BrokerURL] = []
    /// The version asked for first: MQTT 5 (default) or 3.1.1.
    public var protocolVersion: MQTTProtocolVersion = .v5
    /// With ``protocolVersion`` `.v5`: speak MQTT 3.1.1 to a broker that refuses MQTT 5 as an
    /// unsupported protocol version (NATS answers so), instead of retrying MQTT 5 forever.
    /// ``MQTTClient/negotiatedProtocolVersion`` tells which one the broker took.
    public var fallsBackToV311: Bool = true
    /// Keep-alive interval: the broker drops the client (and publishes its will) after 1.5× this without traffic.
    /// 0 disables it; otherwise 5 s to 65535 s.
    public var keepAlive: Duration = .seconds(30)
    /// Start a clean session (`true`, default) or resume the broker-side session (subscriptions and
    /// queued QoS ≥ 1 messages) of the same client id.
    public var cleanSession: Bool = true
    /// With `cleanSession == false` under MQTT 5: how long the broker keeps the session after a disconnect.
    public var sessionExpiry: Duration = .seconds(86_400)
    /// The message the broker publishes if this client vanishes without disconnecting.
    public var will: LastWill?
    /// TLS files for `mqtts://` URLs.
    public var tls: MQTTTLSFiles = MQTTTLSFiles()
    /// First delay before reconnecting; doubles after each failed attempt…
    public var reconnectDelayMin: Duration = .milliseconds(250)
    /// …up to this bound. A successful connection resets the delay to ``reconnectDelayMin``.
    public var reconnectDelayMax: Duration = .seconds(30)
    /// QoS ≥ 1 messages in flight (sent, not yet acknowledged) at once; more wait in the outgoing queue.
    /// 1 to 65535 (MQTT 5 receive maximum of the broker applies too).
    public var maxInflight: Int = 100
    /// Messages accepted but not yet done (QoS 0: not yet written to the socket; QoS ≥ 1: not yet
    /// acknowledged), in flight included. A publish beyond this throws ``MQTTError/queueFull(topic:limit:)``.
    /// libmosquitto's own queue is unbounded; this is the bound.
    public var maxQueued: Int = 10_000
    /// MQTT 5 receive maximum: how many QoS ≥ 1 messages the broker may have in flight towards this client.
    public var receiveMaximum: Int = 1_000
    /// Messages buffered for each ``MQTTClient/messages`` consumer before newer ones are dropped (and counted
    /// in ``MQTTClient/droppedMessageCount``).
    public var messageBufferLimit: Int = 100_000
    /// Disable Nagle's algorithm (lower latency for small messages).
    public var tcpNoDelay: Bool = true
    /// How the network thread is scheduled: ``NetworkThreadScheduling/standard`` (default) or, for a
    /// connection bringing a stream that keeps a core busy, ``NetworkThreadScheduling/batch``.
    public var networkThreadScheduling: NetworkThreadScheduling = .standard

    /// A configuration for `url` with `clientID` (a random `beaconfleet-…` id when omitted) and defaults elsewhere.
    public init(url: BrokerURL, clientID: String? = nil) {
        self.url = url
        self.clientID = clientID ?? Self.randomClientID()
    }

    /// Every broker in the order they are tried: ``url``, then ``failoverURLs``.
    public var brokers: [BrokerURL] { [url] + failoverURLs }

    /// A fresh client id `prefix-` followed by 12 hex digits.
    public static func randomClientID(prefix: String = "beaconfleet") -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() & 0xFFFF_FFFF_FFFF
        let hex = String(value, radix: 16)
        return prefix + "-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }

    /// Checks every field, naming the first bad one.
    public func validate() throws(MQTTError) {
        if clientID.isEmpty || clientID.utf8.count > 65535 {
            throw .invalidConfiguration(field: "clientID", reason: "must be 1 to 65535 bytes")
        }
        let keepAliveSeconds = keepAlive.components.seconds
        if keepAliveSeconds != 0 && !(5...65535).contains(keepAliveSeconds) {
            throw .invalidConfiguration(field: "keepAlive", reason: "must be 0 or 5 s to 65535 s (is \(keepAlive))")
        }
        if !(1...65535).contains(maxInflight) {
            throw .invalidConfiguration(field: "maxInflight", reason: "must be 1 to 65535 (is \(maxInflight))")
        }
        if maxQueued < 1 {
            throw .invalidConfiguration(field: "maxQueued", reason: "must be at least 1 (is \(maxQueued))")
        }
        if !(1...65535).contains(receiveMaximum) {
            throw .invalidConfiguration(field: "receiveMaximum", reason: "must be 1 to 65535 (is \(receiveMaximum))")
        }
        if messageBufferLimit < 1 {
            throw .invalidConfiguration(field: "messageBufferLimit", reason: "must be at least 1 (is \(messageBufferLimit))")
        }
        if reconnectDelayMin <= .zero || reconnectDelayMax < reconnectDelayMin {
            throw .invalidConfiguration(
                field: "reconnectDelayMin/Max", reason: "need 0 < min ≤ max (are \(reconnectDelayMin), \(reconnectDelayMax))")
        }
        for broker in brokers where broker.password != nil && broker.username == nil {
            throw .invalidConfiguration(field: "url", reason: "\(broker) has a password but no user name")
        }
        if Set(brokers.map(\.usesTLS)).count > 1 {
            throw .invalidConfiguration(field: "failoverURLs", reason: "mix mqtt:// and mqtts:// (one set of TLS files serves them all)")
        }
        if (tls.certificateFile == nil) != (tls.keyFile == nil) {
            throw .invalidConfiguration(field: "tls", reason: "a client certificate file needs its key file and vice versa")
        }
        if !tls.isEmpty && !url.usesTLS {
            throw .invalidConfiguration(field: "tls", reason: "TLS files were given but the URL \(url) is not mqtts://")
        }
        if let will, will.topic.isEmpty || will.topic.contains(where: { $0 == "+" || $0 == "#" }) {
            throw .invalidTopic(will.topic, reason: "a last-will topic must be non-empty and without wildcards")
        }
    }
}
