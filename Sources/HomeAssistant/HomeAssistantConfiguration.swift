public import Foundation

/// Home Assistant MQTT discovery (`beaconfleet coordinator --home-assistant`): where to announce
/// devices and how fast their states may change. See docs/home-assistant.md.
public struct HomeAssistantConfiguration: Sendable, Equatable {
    /// Home Assistant's discovery prefix (its `discovery_prefix`; Home Assistant's default is `homeassistant`).
    public var prefix: String
    /// At most one state message per client in this interval; the newest state wins.
    public var stateInterval: Duration = .seconds(1)
    /// At most this many messages (configs and states together) per second, so a venue of
    /// thousands of tags floods neither the broker nor Home Assistant; the rest wait, the oldest
    /// change first (with 10,000 tags all moving, each is shown every 5 s).
    public var messagesPerSecond: Int = 2_000
    /// The origin's `url` in every discovery payload (where operators read about this installation); left out when `nil`.
    public var originURL: String?
    /// The live map's address as Home Assistant's users reach it: every device's
    /// `configuration_url` (*Visit* on its page); left out when `nil` (no `--http`).
    public var mapURL: String?

    /// The default discovery prefix.
    public static let defaultPrefix = "homeassistant"

    /// Discovery under `prefix`; throws for a prefix that is empty or holds a wildcard.
    public init(prefix: String = HomeAssistantConfiguration.defaultPrefix) throws(HomeAssistantError) {
        guard !prefix.isEmpty, !prefix.hasPrefix("/"), !prefix.hasSuffix("/"),
            !prefix.contains(where: { $0 == "+" || $0 == "#" || $0 == "\0" })
        else { throw HomeAssistantError("discovery prefix '\(prefix)': must not be empty, hold '+', '#', or start or end with '/'") }
        self.prefix = prefix
    }
}

extension HomeAssistantConfiguration {
    /// The map's URL for an HTTP server on `host`:`port`: a wildcard address (`0.0.0.0`, `::`)
    /// becomes `hostName` (Home Assistant runs elsewhere), an IPv6 address is bracketed.
    public static func mapURL(host: String, port: Int, hostName: String = ProcessInfo.processInfo.hostName) -> String {
        var name = ["0.0.0.0", "::", "[::]", ""].contains(host) ? hostName : host
        if name.contains(":"), !name.hasPrefix("[") { name = "[\(name)]" }
        return "http://\(name):\(port)/"
    }

    /// Checks a map URL as Home Assistant's `configuration_url` does: `http`, `https` or
    /// `homeassistant`, with a host.
    public static func validMapURL(_ text: String) throws(HomeAssistantError) -> String {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https", "homeassistant"].contains(scheme),
            scheme == "homeassistant" || !(url.host ?? "").isEmpty, !text.contains(where: { $0.isWhitespace })
        else {
            throw HomeAssistantError("map URL '\(text)': Home Assistant takes an http://, https:// or homeassistant:// URL with a host")
        }
        return text
    }
}

/// A Home Assistant setting that cannot work.
public struct HomeAssistantError: Error, CustomStringConvertible, Sendable, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
