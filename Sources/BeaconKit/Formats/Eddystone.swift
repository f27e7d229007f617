/// Eddystone frames: service data for the 16-bit UUID 0xFEAA, whose first byte is the frame type.
public enum Eddystone {
    /// The Eddystone service UUID.
    public static let serviceUUID: UInt16 = 0xFEAA
    /// Frame type of Eddystone-UID.
    public static let uidFrameType: UInt8 = 0x00
    /// Frame type of Eddystone-URL.
    public static let urlFrameType: UInt8 = 0x10
    /// Frame type of Eddystone-TLM.
    public static let tlmFrameType: UInt8 = 0x20

    /// URL scheme prefixes, indexed by the frame's scheme byte.
    public static let urlSchemes = ["http://www.", "https://www.", "http://", "https://"]
    /// URL expansion codes 0x00 … 0x0D.
    public static let urlExpansions = [
        ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
        ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov",
    ]
}

/// Eddystone-UID: a 10-byte namespace and a 6-byte instance.
public struct EddystoneUID: Sendable, Hashable {
    /// The calibrated TX power at 0 m, in dBm (add −41 dB for the usual value at 1 m).
    public var txPower: Int8
    /// The namespace.
    public var namespace: EddystoneNamespace
    /// The instance.
    public var instance: EddystoneInstance

    public init(txPower: Int8, namespace: EddystoneNamespace, instance: EddystoneInstance) {
        self.txPower = txPower
        self.namespace = namespace
        self.instance = instance
    }
}

/// The 10-byte namespace of an Eddystone-UID, printed as 20 lower-case hex digits.
public struct EddystoneNamespace: Sendable, Hashable, CustomStringConvertible {
    /// The first two bytes (big-endian).
    public var high: UInt16
    /// The last eight bytes (big-endian).
    public var low: UInt64

    public init(high: UInt16, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses 20 hex digits; `nil` otherwise.
    public init?(hex text: String) {
        guard text.utf8.count == 20, let high = Hex.parse(text.prefix(4)), let low = Hex.parse(text.suffix(16)) else { return nil }
        self.init(high: UInt16(high), low: low)
    }

    /// The ten bytes, most significant first.
    public var bytes: [UInt8] {
        [UInt8(high >> 8), UInt8(high & 0xFF)] + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
    }

    public var description: String {
        Hex.string(UInt64(high), digits: 4, lowercase: true) + Hex.string(low, digits: 16, lowercase: true)
    }
}

/// The 6-byte instance of an Eddystone-UID, printed as 12 lower-case hex digits.
public struct EddystoneInstance: Sendable, Hashable, CustomStringConvertible {
    /// The six bytes as a big-endian number in the low 48 bits.
    public var rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue & 0xFFFF_FFFF_FFFF
    }

    /// Parses 12 hex digits; `nil` otherwise.
    public init?(hex text: String) {
        guard text.utf8.count == 12, let value = Hex.parse(text) else { return nil }
        self.init(rawValue: value)
    }

    /// The six bytes, most significant first.
    public var bytes: [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: rawValue >> (40 - 8 * UInt64($0))) }
    }

    public var description: String {
        Hex.string(rawValue, digits: 12, lowercase: true)
    }
}

/// Eddystone-URL: a URL compressed with scheme prefixes and expansion codes.
public struct EddystoneURL: Sendable, Hashable {
    /// The calibrated TX power at 0 m, in dBm.
    public var txPower: Int8
    /// The expanded URL, e.g. `https://makecode.com/#about`.
    public var url: String

    public init(txPower: Int8, url: String) {
        self.txPower = txPower
        self.url = url
    }
}

/// Eddystone-TLM (unencrypted, version 0): the beacon's telemetry.
public struct EddystoneTLM: Sendable, Hashable {
    /// Battery voltage in mV; `nil` when the beacon reports 0 (not battery powered / unsupported).
    public var batteryMillivolts: UInt16?
    /// The raw temperature, signed 8.8 fixed point in °C; `0x8000` means not supported.
    public var rawTemperature: Int16
    /// Advertising PDUs sent since power-up or reboot.
    public var advertisingCount: UInt32
    /// Time since power-up or reboot in units of 0.1 s.
    public var uptimeTenths: UInt32

    public init(batteryMillivolts: UInt16?, rawTemperature: Int16, advertisingCount: UInt32, uptimeTenths: UInt32) {
        self.batteryMillivolts = batteryMillivolts
        self.rawTemperature = rawTemperature
        self.advertisingCount = advertisingCount
        self.uptimeTenths = uptimeTenths
    }

    /// The temperature in °C (8.8 fixed point: `raw / 256`); `nil` when not supported (0x8000).
    public var temperature: Double? {
        rawTemperature == Int16.min ? nil : Double(rawTemperature) / 256
    }

    /// Time since power-up in seconds (0.1 s resolution).
    public var uptimeSeconds: Double {
        Double(uptimeTenths) / 10
    }
}
