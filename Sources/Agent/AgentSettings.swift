import Foundation

/// Where a setting's value came from, so an error or `--print-config` can say so.
public enum SettingOrigin: Sendable, Equatable, CustomStringConvertible {
    /// The built-in default.
    case defaultValue
    /// A line of a configuration file.
    case file(path: String, line: Int)
    /// An environment variable.
    case environment(name: String)
    /// A command-line flag.
    case flag(name: String)

    public var description: String {
        switch self {
        case .defaultValue: return "default"
        case .file(let path, let line): return "\(path):\(line)"
        case .environment(let name): return "environment \(name)"
        case .flag(let name): return "flag --\(name)"
        }
    }
}

/// A setting's raw text and where it came from.
public struct SettingValue: Sendable, Equatable {
    public var text: String
    public var origin: SettingOrigin
}

/// An error in the agent's configuration: names the file and line, variable or flag, and the setting.
public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A key no setting has.
    case unknownSetting(key: String, origin: SettingOrigin)
    /// A line of a configuration file that is not `key = value`.
    case malformedLine(path: String, line: Int, text: String)
    /// A value that does not parse; `expected` says what would.
    case invalidValue(key: String, value: String, origin: SettingOrigin, expected: String)
    /// A required setting nobody gave.
    case missing(key: String, hint: String)
    /// Settings that exclude each other.
    case conflict(String)
    /// The configuration file could not be read.
    case unreadableFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .unknownSetting(let key, let origin):
            return "\(origin): unknown setting \"\(key)\"; known settings: \(AgentSettings.keys.map(\.name).joined(separator: ", "))"
        case .malformedLine(let path, let line, let text):
            return "\(path):\(line): expected `key = value`, found \"\(text.prefix(80))\""
        case .invalidValue(let key, let value, let origin, let expected):
            return "\(origin): \(key) = \"\(value.prefix(80))\" is not valid: expected \(expected)"
        case .missing(let key, let hint):
            return "missing setting \(key): \(hint)"
        case .conflict(let text):
            return text
        case .unreadableFile(let path, let reason):
            return "cannot read configuration file \(path): \(reason)"
        }
    }
}

/// The agent's settings as text, layered: defaults, then a configuration file, then the
/// environment, then flags; a later layer wins.
///
/// The file format is one `key = value` per line, `#` starts a comment, keys are the long flag
/// names (`broker`, `gateway`, `window`, …). The environment uses `BEACONFLEET_AGENT_` and the key in
/// upper case with `_` for `-` (`BEACONFLEET_AGENT_SPOOL_LIMIT=16MiB`).
public struct AgentSettings: Sendable, Equatable {
    /// A setting the agent knows, with its default and a one-line explanation.
    public struct Key: Sendable {
        public var name: String
        public var defaultValue: String?
        public var help: String
    }

    /// Every setting, in the order `--print-config` writes them.
    public static let keys: [Key] = [
        Key(
            name: "broker", defaultValue: "mqtt://localhost:1883",
            help: "MQTT broker URL: mqtt://[user:pass@]host[:port] or mqtts://…; several, comma-separated, are tried in turn"),
        Key(name: "mqtt-version", defaultValue: "auto", help: "MQTT version: 5, 3.1.1, or auto (3.1.1 when the broker refuses 5)"),
        Key(name: "gateway", defaultValue: nil, help: "this gateway's id, [A-Za-z0-9._-]{1,64}"),
        Key(name: "adapter", defaultValue: nil, help: "live Bluetooth adapter, hciN (exclusive with replay)"),
        Key(name: "replay", defaultValue: nil, help: "capture file to replay instead of an adapter (btsnoop, pcap, pcapng)"),
        Key(name: "speed", defaultValue: "1", help: "replay pace: a factor of recorded time, or max"),
        Key(name: "resume", defaultValue: "true", help: "a replay that was interrupted resumes after its last spooled window"),
        Key(name: "prefix", defaultValue: "beaconfleet", help: "topic prefix"),
        Key(name: "window", defaultValue: "1s", help: "aggregation window (e.g. 1s, 500ms)"),
        Key(name: "spool", defaultValue: "/var/lib/beaconfleet/spool", help: "spool directory (one per agent)"),
        Key(name: "spool-limit", defaultValue: "64MiB", help: "spool bound; past it the oldest batches are dropped"),
        Key(name: "spool-fsync", defaultValue: "true", help: "flush each batch to stable storage (survives power loss)"),
        Key(name: "allow-uuid", defaultValue: "", help: "comma-separated iBeacon/AltBeacon UUIDs to keep (empty: all)"),
        Key(name: "formats", defaultValue: "ibeacon,altbeacon,eddystone-uid,eddystone-url,eddystone-tlm", help: "beacon formats to keep"),
        Key(name: "min-rssi", defaultValue: "-127", help: "drop advertisements weaker than this (dBm)"),
        Key(name: "deny-address", defaultValue: "", help: "comma-separated advertiser addresses to drop"),
        Key(name: "scan", defaultValue: "passive", help: "live scan type: passive or active"),
        Key(name: "scan-interval", defaultValue: "100ms", help: "LE scan interval (2.5ms…10.24s)"),
        Key(name: "scan-window", defaultValue: "100ms", help: "LE scan window (≤ scan-interval)"),
        Key(name: "ca-file", defaultValue: nil, help: "CA certificate for mqtts://"),
        Key(name: "cert-file", defaultValue: nil, help: "client certificate for mqtts://"),
        Key(name: "key-file", defaultValue: nil, help: "client key for mqtts://"),
        Key(name: "status-interval", defaultValue: "10s", help: "how often the retained status is refreshed"),
        Key(
            name: "drain-timeout", defaultValue: "10s", help: "at the end of a replay or on SIGTERM, how long to wait for acknowledgements"),
        Key(name: "max-inflight", defaultValue: "32", help: "batches published and not yet acknowledged"),
        Key(
            name: "remote-config", defaultValue: "true",
            help: "apply the coordinator's configuration for this gateway (P/v1/gateways/{gw}/config) while running"),
    ]

    /// The settings the coordinator's gateway configuration sets (window, min-rssi); a value given
    /// here (file, environment, flag) overrides the coordinator's.
    public static let remoteKeys = ["window", "min-rssi"]

    /// The environment variable for `key`.
    public static func environmentName(_ key: String) -> String {
        "BEACONFLEET_AGENT_" + key.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The value of each setting that has one, and where it came from.
    public private(set) var values: [String: SettingValue] = [:]

    /// Only the defaults.
    public init() {
        for key in Self.keys {
            if let value = key.defaultValue { values[key.name] = SettingValue(text: value, origin: .defaultValue) }
        }
    }

    /// The setting `key`, if any layer gave it.
    public subscript(key: String) -> SettingValue? { values[key] }

    /// Sets `key` from `origin`, overriding earlier layers.
    public mutating func set(_ key: String, _ text: String, origin: SettingOrigin) throws(ConfigurationError) {
        guard Self.keys.contains(where: { $0.name == key }) else { throw .unknownSetting(key: key, origin: origin) }
        values[key] = SettingValue(text: text, origin: origin)
    }

    /// Removes `key` (used when a flag selects the other of two exclusive settings).
    public mutating func remove(_ key: String) {
        values[key] = nil
    }

    /// Applies a configuration file's text; `path` is only for messages.
    public mutating func apply(fileText text: String, path: String) throws(ConfigurationError) {
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Substring(rawLine)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw .malformedLine(path: path, line: lineNumber, text: String(rawLine))
            }
            let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            var value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            guard !key.isEmpty else { throw .malformedLine(path: path, line: lineNumber, text: String(rawLine)) }
            try set(key, value, origin: .file(path: path, line: lineNumber))
        }
    }

    /// Reads and applies the configuration file at `path`.
    public mutating func apply(file path: String) throws(ConfigurationError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadableFile(
                path: path, reason: FileManager.default.fileExists(atPath: path) ? "not readable UTF-8 text" : "no such file")
        }
        try apply(fileText: text, path: path)
    }

    /// Applies every `BEACONFLEET_AGENT_*` variable of `environment` (except `…_CONFIG`, the file's path).
    public mutating func apply(environment: [String: String]) throws(ConfigurationError) {
        for (name, text) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix("BEACONFLEET_AGENT_") {
            if name == "BEACONFLEET_AGENT_CONFIG" { continue }
            let key = name.dropFirst("BEACONFLEET_AGENT_".count).lowercased().replacingOccurrences(of: "_", with: "-")
            try set(key, text, origin: .environment(name: name))
        }
    }

    /// The settings in the configuration file format, each with its origin as a comment.
    /// Passwords in the broker URL are masked.
    public func rendered() -> String {
        var lines = ["# beaconfleet agent configuration (flags > environment > file > defaults)"]
        for key in Self.keys {
            guard let value = values[key.name] else {
                lines.append("# \(key.name) =    (not set: \(key.help))")
                continue
            }
            let text = key.name == "broker" ? Self.maskPassword(value.text) : value.text
            var note = "\(value.origin)"
            if Self.remoteKeys.contains(key.name), values["remote-config"]?.text.lowercased() != "false" {
                note += value.origin == .defaultValue ? "; the coordinator's configuration replaces it" : "; overrides the coordinator's"
            }
            if key.name == "allow-uuid" || key.name == "deny-address" || key.name == "formats" {
                note += "; applies with the coordinator's identities to keep"
            }
            lines.append("\(key.name) = \(text)    # \(note)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `url` (or each URL of a comma-separated list) with its password as `***`.
    static func maskPassword(_ url: String) -> String {
        url.split(separator: ",", omittingEmptySubsequences: false).map { maskPassword(one: String($0)) }.joined(separator: ",")
    }

    private static func maskPassword(one url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url.range(of: "@", range: scheme.upperBound..<url.endIndex),
            let colon = url.range(of: ":", range: scheme.upperBound..<at.lowerBound)
        else { return url }
        return String(url[..<colon.upperBound]) + "***" + String(url[at.lowerBound...])
    }
}
