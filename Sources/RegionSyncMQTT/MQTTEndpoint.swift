/// Where the broker is and how to reach it, read from a URL:
///
/// ```
/// mqtt://host[:port]          TCP, port 1883 by default
/// mqtts://host[:port]         TCP with TLS, port 8883 by default
/// ws://host[:port]/path       MQTT over WebSocket, port 80 by default
/// wss://host[:port]/path      MQTT over WebSocket with TLS, port 443 by default (for networks that block 8883)
/// ```
///
/// IPv6 hosts go in brackets (`mqtts://[::1]:8883`). Credentials go in ``PhoneMQTTConfiguration``,
/// not in the URL.
public struct MQTTEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// How bytes reach the broker.
    public enum Transport: String, Sendable, Hashable, CaseIterable {
        /// `mqtt://`: plain TCP.
        case tcp = "mqtt"
        /// `mqtts://`: TCP with TLS.
        case tls = "mqtts"
        /// `ws://`: WebSocket (subprotocol `mqtt`) over TCP.
        case webSocket = "ws"
        /// `wss://`: WebSocket (subprotocol `mqtt`) over TLS.
        case secureWebSocket = "wss"

        /// The port when the URL names none.
        public var defaultPort: Int {
            switch self {
            case .tcp: 1883
            case .tls: 8883
            case .webSocket: 80
            case .secureWebSocket: 443
            }
        }

        /// Whether the connection is encrypted.
        public var usesTLS: Bool { self == .tls || self == .secureWebSocket }
        /// Whether MQTT goes inside WebSocket messages.
        public var usesWebSocket: Bool { self == .webSocket || self == .secureWebSocket }
    }

    /// How bytes reach the broker.
    public var transport: Transport
    /// The host name or address (an IPv6 address without its brackets).
    public var host: String
    /// The TCP port.
    public var port: Int
    /// The WebSocket request path (`/mqtt`); `/` for TCP.
    public var path: String

    /// An endpoint with these parts.
    public init(transport: Transport, host: String, port: Int? = nil, path: String = "/") {
        self.transport = transport
        self.host = host
        self.port = port ?? transport.defaultPort
        self.path = path
    }

    /// Reads `url`; throws ``PhoneMQTTError/invalidURL(_:reason:)`` naming what is wrong.
    public init(parsing url: String) throws(PhoneMQTTError) {
        func invalid(_ reason: String) -> PhoneMQTTError {
            .invalidURL(url, reason: reason + " (expected mqtts://host[:port], mqtt://…, wss://host[:port]/path or ws://…)")
        }
        guard let separator = url.range(of: "://") else { throw invalid("no scheme") }
        let scheme = url[..<separator.lowerBound].lowercased()
        guard let transport = Transport(rawValue: scheme) else { throw invalid("unsupported scheme '\(scheme)'") }
        let rest = url[separator.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var path = String(rest[authority.endIndex...])
        guard !authority.contains("@") else {
            throw invalid("credentials in the URL; give them as the configuration's username and password")
        }
        let host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw invalid("unclosed '[' in the host") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("unexpected '\(after)' after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw invalid("no host") }
        var port: Int?
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else { throw invalid("port '\(portText)' is not 1–65535") }
            port = number
        }
        if path.isEmpty { path = "/" }
        guard transport.usesWebSocket || path == "/" else { throw invalid("a path ('\(path)') is only for ws:// and wss://") }
        self.init(transport: transport, host: String(host), port: port, path: path)
    }

    /// The URL: `mqtts://host:8883`, `wss://host:443/mqtt`.
    public var description: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return "\(transport.rawValue)://\(host):\(port)\(transport.usesWebSocket ? path : "")"
    }
}
