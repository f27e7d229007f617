/// Where the broker is and how to log in: `mqtt://[user:pass@]host[:port]` or `mqtts://…` (TLS).
///
/// User and password may be percent-encoded (`%40` for `@`, `%3A` for `:`). IPv6 hosts go in
/// brackets (`mqtt://[::1]:1883`). The default port is 1883 for `mqtt` and 8883 for `mqtts`.
/// ``description`` hides the password, so a `BrokerURL` is safe to log.
public struct BrokerURL: Sendable, Hashable, CustomStringConvertible, LosslessStringConvertible {
    /// Whether the connection uses TLS (`mqtts://`).
    public var usesTLS: Bool
    /// The broker's host name or IP address (IPv6 without brackets).
    public var host: String
    /// The broker's TCP port.
    public var port: Int
    /// The user name to log in with, if any.
    public var username: String?
    /// The password to log in with, if any (requires a user name).
    public var password: String?

    /// A broker URL from its parts.
    public init(host: String, port: Int? = nil, usesTLS: Bool = false, username: String? = nil, password: String? = nil) {
        self.usesTLS = usesTLS
        self.host = host
        self.port = port ?? (usesTLS ? 8883 : 1883)
        self.username = username
        self.password = password
    }

    /// Parses `mqtt://[user:pass@]host[:port]` or `mqtts://…`; `nil` when it is not one.
    public init?(_ description: String) {
        guard let url = try? BrokerURL(parsing: description) else { return nil }
        self = url
    }

    /// Parses `mqtt://[user:pass@]host[:port]` or `mqtts://…`, naming what is wrong when it is not one.
    public init(parsing text: String) throws(MQTTError) {
        func fail(_ reason: String) -> MQTTError { .invalidURL(text, reason: reason) }
        let schemeEnd = text.range(of: "://")
        guard let schemeEnd else { throw fail("missing scheme") }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        switch scheme {
        case "mqtt": usesTLS = false
        case "mqtts": usesTLS = true
        default: throw fail("unsupported scheme '\(scheme)'")
        }
        var rest = Substring(text[schemeEnd.upperBound...])
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if let bad = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            throw fail("unexpected path or query '\(rest[bad...])'")
        }
        username = nil
        password = nil
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let user: Substring
            if let colon = userInfo.firstIndex(of: ":") {
                user = userInfo[..<colon]
                guard let decoded = Self.percentDecoded(userInfo[userInfo.index(after: colon)...]) else {
                    throw fail("bad percent-encoding in the password")
                }
                password = decoded
            } else {
                user = userInfo
            }
            guard !user.isEmpty else { throw fail("empty user name before '@'") }
            guard let decoded = Self.percentDecoded(user) else { throw fail("bad percent-encoding in the user name") }
            username = decoded
        }
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw fail("unterminated IPv6 address '['") }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("unexpected '\(after)' after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = String(rest[..<colon])
            portText = rest[rest.index(after: colon)...]
        } else {
            host = String(rest)
        }
        guard !host.isEmpty else { throw fail("missing host") }
        if host.contains(where: { $0 == " " || $0 == "@" || $0 == "[" || $0 == "]" }) {
            throw fail("invalid host '\(host)'")
        }
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw fail("port '\(portText)' is not a number from 1 to 65535")
            }
            port = value
        } else {
            port = usesTLS ? 8883 : 1883
        }
    }

    /// `host:port` (IPv6 in brackets), for messages.
    public var endpoint: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The URL with the password replaced by `***`.
    public var description: String {
        var text = usesTLS ? "mqtts://" : "mqtt://"
        if let username {
            text += Self.percentEncoded(username)
            if password != nil { text += ":***" }
            text += "@"
        }
        return text + endpoint
    }

    /// The URL including the password (percent-encoded), for handing to another process.
    public var unredactedString: String {
        var text = usesTLS ? "mqtts://" : "mqtt://"
        if let username {
            text += Self.percentEncoded(username)
            if let password { text += ":" + Self.percentEncoded(password) }
            text += "@"
        }
        return text + endpoint
    }

    /// A copy of this URL that logs in as `username` with `password`.
    public func withCredentials(username: String?, password: String?) -> BrokerURL {
        var copy = self
        copy.username = username
        copy.password = password
        return copy
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next(), let low = iterator.next(),
                    let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if byte < 0x80, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-._~".unicodeScalars.contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else {
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
