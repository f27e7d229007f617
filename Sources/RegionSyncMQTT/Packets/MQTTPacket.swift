/// An MQTT 3.1.1 control packet: every packet a client at QoS 0 and 1 sends or receives.
///
/// MQTT 3.1.1 because the NATS cluster's MQTT listener speaks only 3.1.1 (mosquitto speaks both).
/// QoS 2 (`PUBREC`/`PUBREL`/`PUBCOMP`) and `UNSUBSCRIBE` are not modelled: a phone never uses them,
/// and the decoder refuses them as ``MQTTPacketError/unsupportedPacketType(_:)``.
///
/// ``encoded()`` writes a packet's bytes; ``init(header:body:)`` and ``MQTTPacketDecoder`` read them,
/// checking every length and flag the specification fixes, so that bad bytes give an error and never a trap.
public enum MQTTPacket: Sendable, Hashable {
    /// `CONNECT` (client → server).
    case connect(Connect)
    /// `CONNACK` (server → client).
    case connack(ConnAck)
    /// `PUBLISH` (both directions).
    case publish(Publish)
    /// `PUBACK`, the acknowledgement of a QoS 1 `PUBLISH` (both directions).
    case puback(packetIdentifier: UInt16)
    /// `SUBSCRIBE` (client → server).
    case subscribe(Subscribe)
    /// `SUBACK` (server → client).
    case suback(SubAck)
    /// `PINGREQ` (client → server).
    case pingreq
    /// `PINGRESP` (server → client).
    case pingresp
    /// `DISCONNECT` (client → server).
    case disconnect

    /// The packet's name as the specification writes it, for messages.
    public var name: String {
        switch self {
        case .connect: "CONNECT"
        case .connack: "CONNACK"
        case .publish: "PUBLISH"
        case .puback: "PUBACK"
        case .subscribe: "SUBSCRIBE"
        case .suback: "SUBACK"
        case .pingreq: "PINGREQ"
        case .pingresp: "PINGRESP"
        case .disconnect: "DISCONNECT"
        }
    }

    /// A delivery guarantee.
    public enum QoS: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Fire and forget.
        case atMostOnce = 0
        /// Acknowledged with `PUBACK`; may arrive twice.
        case atLeastOnce = 1
        /// The four-packet handshake (not used by this client; NATS does not support it).
        case exactlyOnce = 2

        /// `QoS 0`, `QoS 1` or `QoS 2`.
        public var description: String { "QoS \(rawValue)" }
    }

    /// The fields of a `CONNECT` packet (protocol name `MQTT`, level 4).
    public struct Connect: Sendable, Hashable {
        /// The client identifier (may be empty with a clean session: the broker then assigns one).
        public var clientID: String
        /// Start a fresh session (the broker forgets the previous one and keeps nothing after this one).
        public var cleanSession: Bool
        /// The longest time, in seconds, between two packets from the client; 0 turns keep-alive off.
        public var keepAlive: UInt16
        /// The user name, if any.
        public var username: String?
        /// The password, if any (MQTT 3.1.1 allows one only with a user name).
        public var password: [UInt8]?
        /// The message the broker publishes if the client vanishes without `DISCONNECT`.
        public var will: Will?

        /// A `CONNECT` with these fields.
        public init(
            clientID: String, cleanSession: Bool = true, keepAlive: UInt16 = 30, username: String? = nil, password: [UInt8]? = nil,
            will: Will? = nil
        ) {
            self.clientID = clientID
            self.cleanSession = cleanSession
            self.keepAlive = keepAlive
            self.username = username
            self.password = password
            self.will = will
        }
    }

    /// A last will: published by the broker when the connection ends without `DISCONNECT`.
    public struct Will: Sendable, Hashable {
        /// Its topic (no wildcards).
        public var topic: String
        /// Its payload.
        public var payload: [UInt8]
        /// Its QoS.
        public var qos: QoS
        /// Whether the broker retains it.
        public var retain: Bool

        /// A will with these fields.
        public init(topic: String, payload: [UInt8], qos: QoS = .atMostOnce, retain: Bool = false) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
        }
    }

    /// The fields of a `CONNACK` packet.
    public struct ConnAck: Sendable, Hashable {
        /// Whether the broker resumed a session it kept for this client id.
        public var sessionPresent: Bool
        /// Whether the connection is accepted, or why not.
        public var returnCode: ConnectReturnCode

        /// A `CONNACK` with these fields.
        public init(sessionPresent: Bool = false, returnCode: ConnectReturnCode) {
            self.sessionPresent = sessionPresent
            self.returnCode = returnCode
        }
    }

    /// A `CONNACK` return code: 0 accepts the connection, 1–5 say why the broker refused it.
    public enum ConnectReturnCode: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// 0: connection accepted.
        case accepted = 0
        /// 1: the broker does not speak MQTT 3.1.1.
        case unacceptableProtocolVersion = 1
        /// 2: the client identifier is not allowed.
        case identifierRejected = 2
        /// 3: the MQTT service is unavailable.
        case serverUnavailable = 3
        /// 4: bad user name or password.
        case badUserNameOrPassword = 4
        /// 5: not authorized (mosquitto 2.0 also answers a wrong password with this).
        case notAuthorized = 5

        /// What the code means, as the specification words it.
        public var description: String {
            switch self {
            case .accepted: "connection accepted"
            case .unacceptableProtocolVersion: "unacceptable protocol version (the broker does not speak MQTT 3.1.1)"
            case .identifierRejected: "client identifier rejected"
            case .serverUnavailable: "server unavailable"
            case .badUserNameOrPassword: "bad user name or password"
            case .notAuthorized: "not authorized"
            }
        }
    }

    /// The fields of a `PUBLISH` packet.
    public struct Publish: Sendable, Hashable {
        /// The topic (no wildcards).
        public var topic: String
        /// The payload, any bytes.
        public var payload: [UInt8]
        /// The delivery guarantee.
        public var qos: QoS
        /// Retained: as a client's publish, keep it for later subscribers; as a delivery, this is a retained message.
        public var retain: Bool
        /// A re-delivery of a QoS 1 message whose acknowledgement was not seen.
        public var duplicate: Bool
        /// The packet identifier of a QoS 1 or 2 message (non-zero); `nil` at QoS 0.
        public var packetIdentifier: UInt16?

        /// A `PUBLISH` with these fields.
        public init(
            topic: String, payload: [UInt8], qos: QoS = .atMostOnce, retain: Bool = false, duplicate: Bool = false,
            packetIdentifier: UInt16? = nil
        ) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
            self.duplicate = duplicate
            self.packetIdentifier = packetIdentifier
        }
    }

    /// One topic filter of a `SUBSCRIBE`, with the QoS asked for.
    public struct Subscription: Sendable, Hashable {
        /// The topic filter (`+` and `#` wildcards allowed where MQTT allows them).
        public var filter: String
        /// The highest QoS the client wants its messages delivered at.
        public var qos: QoS

        /// A subscription to `filter` at `qos`.
        public init(filter: String, qos: QoS) {
            self.filter = filter
            self.qos = qos
        }
    }

    /// The fields of a `SUBSCRIBE` packet.
    public struct Subscribe: Sendable, Hashable {
        /// Its packet identifier (non-zero); the `SUBACK` carries the same.
        public var packetIdentifier: UInt16
        /// The filters, at least one.
        public var subscriptions: [Subscription]

        /// A `SUBSCRIBE` with these fields.
        public init(packetIdentifier: UInt16, subscriptions: [Subscription]) {
            self.packetIdentifier = packetIdentifier
            self.subscriptions = subscriptions
        }
    }

    /// The broker's answer for one filter of a `SUBSCRIBE`.
    public enum SubscribeResult: Sendable, Hashable, CustomStringConvertible {
        /// Subscribed; messages come at most at this QoS.
        case granted(QoS)
        /// Refused (return code 0x80), for example by an ACL.
        case failure

        /// `granted QoS 1` or `failure (0x80)`.
        public var description: String {
            switch self {
            case .granted(let qos): "granted \(qos)"
            case .failure: "failure (0x80)"
            }
        }
    }

    /// The fields of a `SUBACK` packet.
    public struct SubAck: Sendable, Hashable {
        /// The identifier of the `SUBSCRIBE` it answers.
        public var packetIdentifier: UInt16
        /// One result per filter, in the `SUBSCRIBE`'s order.
        public var results: [SubscribeResult]

        /// A `SUBACK` with these fields.
        public init(packetIdentifier: UInt16, results: [SubscribeResult]) {
            self.packetIdentifier = packetIdentifier
            self.results = results
        }
    }
}

/// The packet types of MQTT 3.1.1, the high four bits of a packet's first byte.
enum PacketType: UInt8 {
    case connect = 1
    case connack, publish, puback, pubrec, pubrel, pubcomp, subscribe, suback, unsubscribe, unsuback, pingreq, pingresp,
        disconnect
}
