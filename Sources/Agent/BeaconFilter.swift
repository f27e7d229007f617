/// The beacon formats the agent publishes, by their wire names.
public struct BeaconFormats: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let ibeacon = BeaconFormats(rawValue: 1 << 0)
    public static let altbeacon = BeaconFormats(rawValue: 1 << 1)
    public static let eddystoneUID = BeaconFormats(rawValue: 1 << 2)
    public static let eddystoneURL = BeaconFormats(rawValue: 1 << 3)
    public static let eddystoneTLM = BeaconFormats(rawValue: 1 << 4)
    public static let all: BeaconFormats = [.ibeacon, .altbeacon, .eddystoneUID, .eddystoneURL, .eddystoneTLM]

    /// The wire names, in `Sighting.format` spelling.
    public static let names: [(String, BeaconFormats)] = [
        ("ibeacon", .ibeacon), ("altbeacon", .altbeacon), ("eddystone-uid", .eddystoneUID),
        ("eddystone-url", .eddystoneURL), ("eddystone-tlm", .eddystoneTLM),
    ]

    /// Parses a comma-separated list of wire names; `nil` names the first unknown one.
    public static func parse(_ text: String) -> Result<BeaconFormats, ParseFailure> {
        var formats: BeaconFormats = []
        for part in text.split(separator: ",") {
            let name = part.trimmingCharacters(in: .whitespaces).lowercased()
            if name.isEmpty { continue }
            guard let match = names.first(where: { $0.0 == name }) else { return .failure(ParseFailure(text: name)) }
            formats.insert(match.1)
        }
        return .success(formats)
    }

    /// A name in a list that is not a format.
    public struct ParseFailure: Error, Sendable { public var text: String }
}

/// A 16-byte beacon UUID in two halves, cheap to hash and compare.
public struct BeaconUUID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Reads 16 big-endian bytes.
    public init(bytes: some Collection<UInt8>) {
        var high: UInt64 = 0, low: UInt64 = 0
        for (index, byte) in bytes.prefix(16).enumerated() {
            if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    /// Parses `494E5445-4C4C-495F-524F-434B535F4857` (hyphens optional, any case).
    public init?(_ text: some StringProtocol) {
        var nibbles: [UInt8] = []
        for character in text.utf8 where character != UInt8(ascii: "-") {
            guard let value = hexValue(character) else { return nil }
            nibbles.append(value)
        }
        guard nibbles.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) { bytes.append(nibbles[index] << 4 | nibbles[index + 1]) }
        self.init(bytes: bytes)
    }

    /// Upper case with hyphens, as the wire contract writes UUIDs.
    public var description: String {
        // Written byte by byte: this runs for every beacon in every window the agent publishes.
        String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    buffer[position] = UInt8(ascii: "-")
                    position += 1
                }
                let byte = UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (8 * (7 - index % 8)))
                writeHexByte(byte, into: buffer, at: position)
                position += 2
            }
            return position
        }
    }

    public static func < (lhs: BeaconUUID, rhs: BeaconUUID) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }
}

/// A 48-bit Bluetooth device address.
public struct DeviceAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The address with its most significant byte (the first one written) highest.
    public var value: UInt64

    public init(value: UInt64) { self.value = value & 0xFFFF_FFFF_FFFF }

    /// Parses `AA:BB:CC:DD:EE:FF` (or with `-`).
    public init?(_ text: some StringProtocol) {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var value: UInt64 = 0
        for part in parts {
            guard part.utf8.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            value = value << 8 | UInt64(byte)
        }
        self.value = value
    }

    public var description: String {
        String(unsafeUninitializedCapacity: 17) { buffer in
            for index in 0..<6 {
                if index > 0 { buffer[3 * index - 1] = UInt8(ascii: ":") }
                writeHexByte(UInt8(truncatingIfNeeded: value >> (8 * (5 - index))), into: buffer, at: 3 * index)
            }
            return 17
        }
    }

    public static func < (lhs: DeviceAddress, rhs: DeviceAddress) -> Bool { lhs.value < rhs.value }
}

/// Which advertisements the agent keeps: by format, UUID, signal strength and address.
///
/// The UUID allow-list applies to iBeacon and AltBeacon; Eddystone frames are kept or dropped by
/// their format alone.
public struct BeaconFilter: Sendable, Equatable {
    /// Formats to keep.
    public var formats: BeaconFormats
    /// UUIDs to keep; empty keeps every UUID.
    public var allowedUUIDs: Set<BeaconUUID>
    /// Advertisements weaker than this (dBm) are dropped.
    public var minimumRSSI: Int
    /// Advertisers whose advertisements are dropped.
    public var deniedAddresses: Set<DeviceAddress>

    public init(formats: BeaconFormats = .all, allowedUUIDs: Set<BeaconUUID> = [], minimumRSSI: Int = -127, deniedAddresses: Set<DeviceAddress> = []) {
        self.formats = formats
        self.allowedUUIDs = allowedUUIDs
        self.minimumRSSI = minimumRSSI
        self.deniedAddresses = deniedAddresses
    }

    /// Whether `observation` passes.
    @inline(__always)
    public func admits(_ observation: BeaconObservation) -> Bool {
        guard formats.contains(observation.format), observation.rssi >= minimumRSSI else { return false }
        if !allowedUUIDs.isEmpty, observation.format == .ibeacon || observation.format == .altbeacon,
            !allowedUUIDs.contains(observation.uuid)
        {
            return false
        }
        return deniedAddresses.isEmpty || !deniedAddresses.contains(observation.address)
    }
}

@inline(__always) func hexValue(_ character: UInt8) -> UInt8? {
    switch character {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
    default: return nil
    }
}

/// `value`'s low `digits` hex digits, upper case, zero-padded.
func hexString(_ value: UInt64, digits: Int) -> String {
    String(unsafeUninitializedCapacity: digits) { buffer in
        for index in 0..<digits {
            buffer[index] = hexDigit(UInt8(truncatingIfNeeded: value >> (4 * UInt64(digits - 1 - index))) & 0x0F)
        }
        return digits
    }
}

/// Writes `byte` as two upper-case hex digits at `position`.
@inline(__always) func writeHexByte(_ byte: UInt8, into buffer: UnsafeMutableBufferPointer<UInt8>, at position: Int) {
    buffer[position] = hexDigit(byte >> 4)
    buffer[position + 1] = hexDigit(byte & 0x0F)
}

@inline(__always) func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
}
