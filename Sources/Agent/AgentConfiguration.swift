import BeaconKit
import Foundation
public import WireProtocol

/// Where the agent reads HCI events from.
public enum AgentSource: Sendable, Equatable {
    /// A live adapter, `hciN`.
    case adapter(String)
    /// A capture file, replayed at `speed`.
    case replay(path: String, speed: ReplaySpeed)

    /// What the status message reports as the adapter: `hci0` or `replay:FILE`.
    public var statusName: String {
        switch self {
        case .adapter(let name): return name
        case .replay(let path, _): return "replay:" + path
        }
    }
}

/// How fast a capture is replayed.
public enum ReplaySpeed: Sendable, Equatable, CustomStringConvertible {
    /// As fast as the pipeline goes.
    case max
    /// Recorded time divided by this factor (1 = real time, 10 = ten times faster).
    case factor(Double)

    public var description: String {
        switch self {
        case .max: return "max"
        case .factor(let value): return value == value.rounded() ? String(Int(value)) : String(value)
        }
    }
}

/// The agent's whole configuration, typed and validated.
///
/// Build it from layered text settings with ``init(settings:)``: each value's error names where it
/// came from (file and line, environment variable or flag).
public struct AgentConfiguration: Sendable, Equatable {
    /// The broker URL as given (`mqtt://…` or `mqtts://…`).
    public var broker: String
    public var gateway: Identifier
    public var source: AgentSource
    /// Whether an interrupted replay resumes after its last spooled window.
    public var resumeReplay: Bool
    public var topics: Topics
    /// Window length in microseconds.
    public var windowMicros: Int64
    public var spoolDirectory: String
    public var spoolLimitBytes: UInt64
    public var spoolSynchronous: Bool
    public var filter: BeaconFilter
    public var scan: ScanParameters
    /// `--mqtt-version`: `5`, `3.1.1` or `auto`.
    public var mqttVersion: String = "auto"
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    /// Seconds between refreshes of the retained status.
    public var statusInterval: Double
    /// Seconds to wait for outstanding acknowledgements at the end of a replay or on SIGTERM.
    public var drainTimeout: Double
    /// Batches published and not yet acknowledged, at most.
    public var maxInflight: Int
    /// Payload bytes published and not yet acknowledged, at most (a single larger batch still goes
    /// alone). Bounds the agent's memory whatever the window's size: a block of spooled batches is
    /// held in memory, and copied by libmosquitto, until the broker acknowledges it.
    public var maxInflightBytes: Int = 512 * 1024
    /// Whether the coordinator's configuration for this gateway is applied (`remote-config`).
    public var remoteConfiguration: Bool = true
    /// The settings of ``AgentSettings/remoteKeys`` given locally (not defaults): they override the
    /// coordinator's.
    public var localOverrides: Set<String> = []

    /// A configuration for tests and embedding, with the defaults of ``AgentSettings``.
    public init(broker: String, gateway: Identifier, source: AgentSource, spoolDirectory: String) throws(ConfigurationError) {
        var settings = AgentSettings()
        try settings.set("broker", broker, origin: .defaultValue)
        try settings.set("gateway", gateway.rawValue, origin: .defaultValue)
        switch source {
        case .adapter(let name):
            try settings.set("adapter", name, origin: .defaultValue)
        case .replay(let path, let speed):
            try settings.set("replay", path, origin: .defaultValue)
            try settings.set("speed", speed.description, origin: .defaultValue)
        }
        try settings.set("spool", spoolDirectory, origin: .defaultValue)
        try self.init(settings: settings)
    }

    /// Parses and validates `settings`.
    public init(settings: AgentSettings) throws(ConfigurationError) {
        func value(_ key: String) -> SettingValue? {
            guard let value = settings[key], !value.text.isEmpty else { return nil }
            return value
        }
        func invalid(_ key: String, _ expected: String) -> ConfigurationError {
            let setting = settings[key] ?? SettingValue(text: "", origin: .defaultValue)
            return .invalidValue(key: key, value: setting.text, origin: setting.origin, expected: expected)
        }
        /// The items of a comma-separated setting, each read by `parse` (blanks around it ignored);
        /// empty when the setting is not set.
        func commaSeparated<Item: Hashable>(_ key: String, _ parse: (String) -> Item?, _ expected: String) throws(ConfigurationError)
            -> Set<Item>
        {
            var items: Set<Item> = []
            for part in value(key)?.text.split(separator: ",") ?? [] {
                guard let item = parse(part.trimmingCharacters(in: .whitespaces)) else { throw invalid(key, expected) }
                items.insert(item)
            }
            return items
        }

        guard let brokerText = value("broker")?.text else { throw .missing(key: "broker", hint: "pass --broker mqtt://HOST:PORT") }
        guard brokerText.hasPrefix("mqtt://") || brokerText.hasPrefix("mqtts://") else {
            throw invalid("broker", "a URL mqtt://[user:pass@]host[:port] or mqtts://…")
        }
        broker = brokerText

        guard let gatewayText = value("gateway")?.text else {
            throw .missing(key: "gateway", hint: "pass --gateway ID (1 to 64 of A-Z a-z 0-9 . _ -), for example the host name")
        }
        guard let gatewayID = Identifier(validating: gatewayText) else { throw invalid("gateway", "1 to 64 of [A-Za-z0-9._-]") }
        gateway = gatewayID

        switch (value("adapter"), value("replay")) {
        case (.some, .some):
            throw .conflict(
                "both adapter (\(settings["adapter"]!.origin)) and replay (\(settings["replay"]!.origin)) are set; choose one: --adapter hciN or --replay FILE"
            )
        case (nil, nil):
            throw .missing(key: "adapter or replay", hint: "pass --adapter hciN for a live radio or --replay FILE for a capture")
        case (let adapter?, nil):
            guard adapter.text.hasPrefix("hci"), let index = Int(adapter.text.dropFirst(3)), index >= 0, index < 64 else {
                throw invalid("adapter", "hciN, for example hci0")
            }
            source = .adapter(adapter.text)
        case (nil, let replay?):
            let speedText = value("speed")?.text ?? "1"
            let speed: ReplaySpeed
            if speedText.lowercased() == "max" {
                speed = .max
            } else if let factor = Double(speedText), factor > 0, factor.isFinite {
                speed = .factor(factor)
            } else {
                throw invalid("speed", "a positive factor such as 1, 10, 0.5, or max")
            }
            source = .replay(path: replay.text, speed: speed)
        }
        guard let resume = Self.parseBool(value("resume")?.text ?? "true") else { throw invalid("resume", "true or false") }
        resumeReplay = resume

        do {
            topics = try Topics(prefix: value("prefix")?.text ?? Topics.defaultPrefix)
        } catch {
            throw invalid("prefix", "a topic prefix without +, # or a leading or trailing /")
        }
        guard let window = Self.parseDuration(value("window")?.text ?? "1s"), window >= 0.01, window <= 3600 else {
            throw invalid("window", "a duration from 10ms to 1h, such as 1s or 500ms")
        }
        windowMicros = Int64((window * 1_000_000).rounded())

        guard let spool = value("spool")?.text else { throw invalid("spool", "a directory") }
        spoolDirectory = spool
        guard let limit = Self.parseSize(value("spool-limit")?.text ?? "64MiB"), limit >= 64 * 1024 else {
            throw invalid("spool-limit", "a size of at least 64KiB, such as 64MiB or 512KiB")
        }
        spoolLimitBytes = limit
        guard let sync = Self.parseBool(value("spool-fsync")?.text ?? "true") else { throw invalid("spool-fsync", "true or false") }
        spoolSynchronous = sync

        var filter = BeaconFilter()
        if let formats = value("formats") {
            let parsed = try? BeaconFormat.Set(parsing: formats.text)
            guard let parsed, !parsed.isEmpty else {
                throw invalid("formats", "a comma-separated list of ibeacon, altbeacon, eddystone-uid, eddystone-url, eddystone-tlm")
            }
            filter.formats = parsed
        }
        filter.allowedUUIDs = try commaSeparated(
            "allow-uuid", { BeaconUUID($0) }, "comma-separated UUIDs such as 494E5445-4C4C-495F-524F-434B535F4857")
        if let minimum = value("min-rssi") {
            guard let dBm = Int(minimum.text), (-127...20).contains(dBm) else {
                throw invalid("min-rssi", "dBm from -127 to 20, such as -90")
            }
            filter.minimumRSSI = dBm
        }
        filter.deniedAddresses = try commaSeparated(
            "deny-address", { BluetoothAddress($0) }, "comma-separated addresses such as AA:BB:CC:DD:EE:FF")
        self.filter = filter

        let scanType = (value("scan")?.text ?? "passive").lowercased()
        guard scanType == "passive" || scanType == "active" else { throw invalid("scan", "passive or active") }
        func scanUnits(_ key: String, _ fallback: String) throws(ConfigurationError) -> UInt16 {
            guard let seconds = Self.parseDuration(value(key)?.text ?? fallback) else {
                throw invalid(key, "a duration from 2.5ms to 10.24s")
            }
            let units = (seconds / 0.000625).rounded()
            guard units >= 4, units <= 0x4000 else { throw invalid(key, "a duration from 2.5ms to 10.24s") }
            return UInt16(units)
        }
        let interval = try scanUnits("scan-interval", "100ms")
        let scanWindow = try scanUnits("scan-window", "100ms")
        guard scanWindow <= interval else {
            throw invalid("scan-window", "at most scan-interval (\(settings["scan-interval"]?.text ?? "100ms"))")
        }
        scan = ScanParameters(active: scanType == "active", interval: interval, window: scanWindow)

        mqttVersion = value("mqtt-version")?.text ?? "auto"
        guard ["5", "3.1.1", "auto"].contains(mqttVersion) else { throw invalid("mqtt-version", "5, 3.1.1 or auto") }
        caFile = value("ca-file")?.text
        certFile = value("cert-file")?.text
        keyFile = value("key-file")?.text
        if (certFile == nil) != (keyFile == nil) {
            throw .conflict("cert-file and key-file go together: give both for a client certificate, or neither")
        }
        guard let statusInterval = Self.parseDuration(value("status-interval")?.text ?? "10s"), statusInterval >= 0.1 else {
            throw invalid("status-interval", "a duration of at least 100ms, such as 10s")
        }
        self.statusInterval = statusInterval
        guard let drain = Self.parseDuration(value("drain-timeout")?.text ?? "10s"), drain >= 0 else {
            throw invalid("drain-timeout", "a duration such as 10s")
        }
        drainTimeout = drain
        guard let inflight = Int(value("max-inflight")?.text ?? "32"), (1...1000).contains(inflight) else {
            throw invalid("max-inflight", "a count from 1 to 1000")
        }
        maxInflight = inflight
        guard let remote = Self.parseBool(value("remote-config")?.text ?? "true") else { throw invalid("remote-config", "true or false") }
        remoteConfiguration = remote
        localOverrides = Set(AgentSettings.remoteKeys.filter { key in settings[key].map { $0.origin != .defaultValue } ?? false })
    }

    /// `1s`, `500ms`, `2.5`, `1m`, `250us` → seconds.
    public static func parseDuration(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("ms", 0.001), ("us", 0.000_001), ("µs", 0.000_001), ("s", 1), ("m", 60), ("h", 3600)]
        for (suffix, scale) in units where trimmed.hasSuffix(suffix) {
            guard let number = Double(trimmed.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), number.isFinite, number >= 0
            else { return nil }
            return number * scale
        }
        guard let number = Double(trimmed), number.isFinite, number >= 0 else { return nil }
        return number
    }

    /// `64MiB`, `64M`, `512KiB`, `1GiB`, `1048576` → bytes (binary units).
    public static func parseSize(_ text: String) -> UInt64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [
            ("kib", 1024), ("mib", 1_048_576), ("gib", 1_073_741_824), ("kb", 1024), ("mb", 1_048_576), ("gb", 1_073_741_824), ("k", 1024),
            ("m", 1_048_576), ("g", 1_073_741_824), ("b", 1),
        ]
        for (suffix, scale) in units where trimmed.hasSuffix(suffix) {
            guard let number = Double(trimmed.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), number.isFinite, number >= 0
            else { return nil }
            return UInt64(number * scale)
        }
        return UInt64(trimmed)
    }

    static func parseBool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: return nil
        }
    }
}
