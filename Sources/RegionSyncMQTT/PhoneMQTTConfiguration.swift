/// How a phone reaches the venue's broker: everything ``PhoneMQTTTransport`` needs.
///
/// ```swift
/// PhoneMQTTConfiguration(url: "mqtts://broker.example.com:8883", clientID: "phone-3f9a2c", username: "phone-3f9a2c", password: secret)
/// ```
///
/// The URL is checked when the transport connects, so that a wake reports a bad one as its error.
public struct PhoneMQTTConfiguration: Sendable, Hashable {
    /// `mqtts://host:8883` (TLS), `mqtt://host:1883`, `wss://host/mqtt` (WebSocket over TLS, for
    /// networks that block 8883) or `ws://…` (``MQTTEndpoint``).
    public var url: String
    /// The phone's client id: its id in the topics and, with per-phone accounts, its user name.
    public var clientID: String
    /// The user name (`beaconfleet credentials add` makes it the client id).
    public var username: String?
    /// The password.
    public var password: String?
    /// The venue's own CA, PEM or DER: with it, only brokers whose certificate it signed are
    /// trusted (and the system's trust store is not used). `nil`: the system's trust store.
    public var caCertificate: [UInt8]?
    /// The keep-alive announced to the broker (whole seconds): a `PINGREQ` goes out after three
    /// quarters of it without a packet, and the broker drops a phone it has not heard from for 1.5 times it.
    public var keepAlive: Duration
    /// The longest wait for the connection: TCP, TLS (and WebSocket), `CONNACK`.
    public var connectTimeout: Duration
    /// A client certificate, for brokers that require one.
    public var clientIdentity: PhoneMQTTClientIdentity?
    /// The longest wait for each `SUBACK` and `PUBACK` (the wake's own deadline usually comes first).
    public var responseTimeout: Duration

    /// A configuration; keep-alive 30 s, connect timeout 5 s, response timeout 10 s.
    public init(
        url: String, clientID: String, username: String? = nil, password: String? = nil, caCertificate: [UInt8]? = nil,
        keepAlive: Duration = .seconds(30), connectTimeout: Duration = .seconds(5), clientIdentity: PhoneMQTTClientIdentity? = nil,
        responseTimeout: Duration = .seconds(10)
    ) {
        self.url = url
        self.clientID = clientID
        self.username = username
        self.password = password
        self.caCertificate = caCertificate
        self.keepAlive = keepAlive
        self.connectTimeout = connectTimeout
        self.clientIdentity = clientIdentity
        self.responseTimeout = responseTimeout
    }

    /// The client's options for this configuration, with client id `clientID`.
    public func clientOptions(clientID: String? = nil) -> PhoneMQTTClient.Options {
        PhoneMQTTClient.Options(clientID: clientID ?? self.clientID, username: username, password: password, keepAlive: keepAlive)
    }

    /// A new byte stream to the broker for this platform: `Network.framework` on Apple platforms,
    /// SwiftNIO on Linux (with the package's `Server` trait, which brings it). Throws for a bad URL
    /// or certificate, or where the platform has neither.
    public func makeStream() throws(PhoneMQTTError) -> any MQTTByteStream {
        let endpoint = try MQTTEndpoint(parsing: url)
        let tls = try MQTTTLSSettings(caCertificate: caCertificate, clientIdentity: clientIdentity)
        #if canImport(Network)
            return try NetworkByteStream(endpoint: endpoint, tls: tls)
        #elseif os(Linux) && canImport(NIOPosix)
            return try NIOByteStream(endpoint: endpoint, tls: tls)
        #else
            throw .invalidConfiguration(
                "no byte stream on this platform: RegionSyncMQTT runs over Network.framework (Apple platforms) or SwiftNIO (Linux, with the package's Server trait)"
            )
        #endif
    }
}
